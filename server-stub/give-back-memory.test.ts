import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { memoryGiver, QUIET_MS } from './give-back-memory.ts';

describe('a reset gives memory back (H11)', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('collects at once, and once more when the stub has been quiet 2 × QUIET_MS since the last reset', () => {
    vi.useFakeTimers();
    const collect = vi.fn();
    const giver = memoryGiver(collect);
    giver.afterReset();
    expect(collect).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(2 * QUIET_MS - 1);
    expect(collect).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(1);
    expect(collect).toHaveBeenCalledTimes(2);
    vi.advanceTimersByTime(10 * QUIET_MS);
    expect(collect).toHaveBeenCalledTimes(2);
  });

  it('collects at most once a QUIET_MS for resets close together, the follow-up after the last of them', () => {
    vi.useFakeTimers();
    const collect = vi.fn();
    const giver = memoryGiver(collect);
    for (let i = 0; i < 50; i++) {
      giver.afterReset();
      vi.advanceTimersByTime(100); // a suite resetting before each of 50 quick tests
    }
    // 5 s of resets: the first collects; the one at exactly QUIET_MS after it collects again.
    expect(collect).toHaveBeenCalledTimes(1);
    giver.afterReset(); // at 5,000 ms: the boundary instant counts as quiet enough
    expect(collect).toHaveBeenCalledTimes(2);
    vi.advanceTimersByTime(2 * QUIET_MS);
    expect(collect).toHaveBeenCalledTimes(3);
  });

  it('stop cancels the follow-up', () => {
    vi.useFakeTimers();
    const collect = vi.fn();
    const giver = memoryGiver(collect);
    giver.afterReset();
    giver.stop();
    vi.advanceTimersByTime(10 * QUIET_MS);
    expect(collect).toHaveBeenCalledTimes(1);
  });

  it('reaches V8’s collector in a process started without --expose-gc, and it frees memory', () => {
    // A child process, so the flag set at run time does not leak into this test process.
    const script = `
      import { memoryGiver } from ${JSON.stringify(new URL('./give-back-memory.ts', import.meta.url).href)};
      let kept = Array.from({ length: 200000 }, (_, i) => ({ i, s: 'x' + i }));
      const before = process.memoryUsage().heapUsed;
      kept = undefined;
      memoryGiver().afterReset();
      const after = process.memoryUsage().heapUsed;
      console.log(JSON.stringify({ before, after, exposed: typeof globalThis.gc }));
      process.exit(0);
    `;
    const run = spawnSync(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', script],
      {
        encoding: 'utf8',
        timeout: 60_000,
      },
    );
    expect(run.stderr).toBe('');
    const { before, after, exposed } = JSON.parse(run.stdout) as Record<string, number | string>;
    // The main context's global gets no `gc`: only the stub holds it.
    expect(exposed).toBe('undefined');
    expect(Number(before) - Number(after)).toBeGreaterThan(10 * 1024 * 1024);
  });

  it('leaves V8’s flags as they were, so a code cache made before still takes (Q18)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'badge-sim-gb-'));
    const cache = join(dir, 'code.cache');
    const code = 'function add(a, b) { return a + b; } add(1, 2);';
    const node = (script: string) =>
      spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
        encoding: 'utf8',
        timeout: 60_000,
      });
    try {
      const made = node(`
        import { writeFileSync } from 'node:fs';
        import { Script } from 'node:vm';
        const script = new Script(${JSON.stringify(code)});
        script.runInThisContext();
        writeFileSync(${JSON.stringify(cache)}, script.createCachedData());
      `);
      expect(made.stderr).toBe('');
      const taken = node(`
        import { readFileSync } from 'node:fs';
        import { Script } from 'node:vm';
        import { memoryGiver } from ${JSON.stringify(new URL('./give-back-memory.ts', import.meta.url).href)};
        memoryGiver().afterReset();
        const script = new Script(${JSON.stringify(code)}, { cachedData: readFileSync(${JSON.stringify(cache)}) });
        console.log(JSON.stringify({ rejected: script.cachedDataRejected }));
        process.exit(0);
      `);
      expect(taken.stderr).toBe('');
      expect(JSON.parse(taken.stdout)).toEqual({ rejected: false });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
