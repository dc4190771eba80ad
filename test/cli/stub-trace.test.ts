/** `badge-sim stub --trace FILE` as a user runs it (TR1): the banner says it, a clean stop completes it. */
import { once } from 'node:events';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { readTrace } from '../../input/read-trace.ts';
import { runCli, startCli } from '../support/cli.ts';
import { RIVERSIDE, request } from '../support/http.ts';

const dir = mkdtempSync(join(tmpdir(), 'badge-sim-stub-trace-'));

describe('badge-sim stub --trace', () => {
  test('the banner names the file; after SIGTERM it holds the session, the request and the end', async () => {
    const file = join(dir, 'session.trace.gz');
    await using cli = await startCli(
      ['stub', '--port', '0', '--quiet', '--trace', file],
      'Press Ctrl+C to stop.',
    );
    expect(cli.output()).toContain(
      `trace        ${file} (gzip JSON lines, at most 20000 records; complete once the stub stops)`,
    );
    const url = /control API\s+(http:\/\/\S+)\/_stub/.exec(cli.output())![1]!;
    const res = await request(`${url}/subscribers/100001/api/v1/events`, {
      headers: { authorization: `ServiceApiKey ${RIVERSIDE.key}` },
    });
    expect(res.status).toBe(200);
    cli.child.kill('SIGTERM');
    const [code] = await once(cli.child, 'exit');
    expect(code).toBe(0);
    expect(readTrace(file).records.map((r) => r.kind)).toEqual(['session', 'request', 'end']);
  });

  test('a file that cannot be written: one line saying what to fix, exit 2, nothing listens', () => {
    const file = join(dir, 'missing', 'x.trace.gz');
    const result = runCli(['stub', '--port', '0', '--trace', file]);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain(
      `--trace (BADGE_SIM_TRACE) ${file}: cannot write it (its folder does not exist): give a file path in a folder you can write`,
    );
    expect(result.stdout).not.toContain('Press Ctrl+C');
  });
});
