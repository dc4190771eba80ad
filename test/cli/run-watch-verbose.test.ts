/**
 * `run --watch` (decision Y9) and `run --verbose` (Y10), issue 31 point 6, as a user runs them:
 * a real process, real files changed in a temporary folder, and its output awaited with a
 * bounded poll (no fixed sleeps). A plain run loads neither module.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { describe, expect, test } from 'vitest';
import { initFiles } from '../../cli/init-templates.ts';
import { watchScenarios } from '../../cli/watch-scenarios.ts';
import { BIN, startCli } from '../support/cli.ts';

const [SCENARIO, FIXTURES] = initFiles('.');

/** A folder with scenarios A and B, both on fixtures.yaml beside them. */
function project(): string {
  const dir = mkdtempSync(join(tmpdir(), 'badge-sim-watch-'));
  writeFileSync(join(dir, 'fixtures.yaml'), FIXTURES!.text);
  for (const name of ['A', 'B'])
    writeFileSync(
      join(dir, `${name.toLowerCase()}.scenario.yaml`),
      SCENARIO!.text.replace('name: First alert', `name: First alert ${name}`),
    );
  return dir;
}

/** `run DIR --watch` in DIR, once its first run has passed. */
async function watchRun(dir: string) {
  const cli = await startCli(['run', dir, '--watch'], 'all scenarios passed', {}, dir);
  const exited = new Promise<number | null>((resolve) => cli.child.once('exit', resolve));
  /** Waits, at most 60 s, until stderr holds `count` lines saying it is watching. */
  const watching = (count: number) =>
    expect
      .poll(
        () =>
          cli
            .errors()
            .split('\n')
            .filter((line) => line.includes('watching')).length,
        {
          timeout: 60_000,
          interval: 50,
        },
      )
      .toBeGreaterThanOrEqual(count);
  return { ...cli, out: cli.output, err: cli.errors, watching, exited };
}

const WATCHING = 'badge-sim run --watch: watching 3 files in 1 folder; Ctrl+C to stop';

describe('run --watch', () => {
  test('reruns the scenarios a fixtures file change touches, then only the scenario whose file changed; Ctrl+C exits with the last run’s status', async () => {
    const dir = project();
    await using run = await watchRun(dir);
    await run.watching(1);
    expect(run.err()).toBe(`${WATCHING}\n`);
    expect(run.out()).toContain('all scenarios passed');

    // The fixtures both scenarios name: both run again, on the file as it is now.
    const fixtures = join(dir, 'fixtures.yaml');
    writeFileSync(fixtures, readFileSync(fixtures, 'utf8').replace('My site', 'North Wing'));
    await run.watching(2);
    expect(run.err()).toContain(
      `${WATCHING}\nbadge-sim run --watch: fixtures.yaml changed: running 2 scenarios again\n${WATCHING}\n`,
    );
    expect(run.out().match(/✓ First alert B/g)).toHaveLength(2);

    // One scenario: only it runs again, and it fails.
    const a = join(dir, 'a.scenario.yaml');
    writeFileSync(a, readFileSync(a, 'utf8').replace('at: 5s }', 'at: 6s }'));
    await run.watching(3);
    expect(run.err()).toContain(
      'badge-sim run --watch: a.scenario.yaml changed: running 1 scenario again\n',
    );
    expect(run.out()).toContain('✗ First alert A');
    expect(run.out().match(/✓ First alert B/g)).toHaveLength(2);

    run.child.kill('SIGINT');
    expect(await run.exited).toBe(1);
    expect(run.err()).toMatch(/stopped; exit status 1, the last run's\n$/);
  }, 180_000);

  test('Ctrl+C after a run that passed exits 0', async () => {
    await using run = await watchRun(project());
    await run.watching(1);
    run.child.kill('SIGINT');
    expect(await run.exited).toBe(0);
  }, 120_000);

  test('a file saved while the first run ran is run again once it is over; one saved at its start instant is not', async () => {
    // In this process, on the watcher itself: a save during a real first run is a race with
    // its end; the mtimes placed around the run's start are not.
    const dir = project();
    const since = Date.now() - 60_000;
    const a = join(dir, 'a.scenario.yaml');
    const b = join(dir, 'b.scenario.yaml');
    const fixtures = join(dir, 'fixtures.yaml');
    utimesSync(fixtures, new Date(since - 1_000), new Date(since - 1_000));
    utimesSync(b, new Date(since), new Date(since));
    utimesSync(a, new Date(since + 1), new Date(since + 1));
    const reran: string[][] = [];
    const lines: string[] = [];
    const stopped = watchScenarios({
      paths: [dir],
      files: [a, b],
      rerun: async (files) => {
        reran.push(files);
        return 0;
      },
      status: 1,
      since,
      log: (line) => lines.push(line),
    });
    await expect.poll(() => reran, { timeout: 10_000, interval: 20 }).toEqual([[a]]);
    expect(lines.filter((line) => line.includes('changed'))).toEqual([
      `${relative(process.cwd(), a)} changed: running 1 scenario again`,
    ]);
    process.emit('SIGTERM');
    expect(await stopped).toBe(0);
  });

  test('--watch with --shard is a usage error', () => {
    const result = spawnSync(process.execPath, [BIN, 'run', '--watch', '--shard', '1/2'], {
      encoding: 'utf8',
      timeout: 45_000,
    });
    expect(result.status).toBe(2);
    expect(result.stderr).toBe(
      'badge-sim: give either --watch or --shard, not both: watch runs what changed, on one machine.\n',
    );
  });
});

describe('run --verbose', () => {
  test('says each step on stderr as it runs: index, time on the scenario clock, what it does, outcome', () => {
    const dir = project();
    const file = join(dir, 'a.scenario.yaml');
    writeFileSync(
      file,
      readFileSync(file, 'utf8').replace(
        'duration: 1m',
        `  - at: 2s
    tap: Ada Mensah
  - at: 2.5s
    request: { method: GET, path: events }
    expect: { status: 404 }
duration: 1m`,
      ),
    );
    const result = spawnSync(process.execPath, [BIN, 'run', file, '--verbose'], {
      encoding: 'utf8',
      timeout: 60_000,
      // As on a developer's machine: under CI the failed scenario's trace is kept and said (TR8).
      env: { ...process.env, CI: '' },
    });
    expect(result.stderr).toBe(
      [
        '▸ First alert A',
        '  step 0 at 0s: alert {"notification":"Spill in ward 3","groups":["Nurses"],"quorum":1,"on_quorum":"Covered"} → 200',
        '  step 1 at 2s: tap Ada Mensah → done',
        '  step 2 at 2.5s: request {"method":"GET","path":"events"} → 200, not as expected: status 200, expected 404',
        '',
      ].join('\n'),
    );
    expect(result.status).toBe(1);
  }, 90_000);

  test('a run without --watch or --verbose loads neither module', () => {
    const dir = project();
    const log = join(dir, 'loads.txt');
    writeFileSync(log, '');
    const hook = `import { register } from 'node:module';\nregister('data:text/javascript,' + encodeURIComponent(\`import { appendFileSync } from 'node:fs';\nexport async function load(url, context, next) { appendFileSync(${JSON.stringify(log)}, url + '\\\\n'); return next(url, context); }\`));\n`;
    writeFileSync(join(dir, 'log-loads.mjs'), hook);
    const result = spawnSync(
      process.execPath,
      ['--import', './log-loads.mjs', BIN, 'run', join(dir, 'b.scenario.yaml')],
      { cwd: dir, encoding: 'utf8', timeout: 60_000 },
    );
    expect(result.status).toBe(0);
    const loaded = readFileSync(log, 'utf8');
    expect(loaded).toContain('/scenarios/runner/run-suite.ts');
    expect(loaded).not.toContain('watch-scenarios');
    expect(loaded).not.toContain('verbose-steps');
  }, 90_000);
});
