/** `badge-sim stub --trace FILE` as a user runs it (TR1): the banner says it, a clean stop completes it. */
import { once } from 'node:events';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { readTrace } from '../../input/read-trace.ts';
import { openRecordingFile, writeRecordingTo } from '../../server-stub/recording-file.ts';
import { startStub } from '../../server-stub/start-stub.ts';
import { startFleet } from '../../simulator/fleet.ts';
import { runCli, startCli } from '../support/cli.ts';
import { controlClient, RIVERSIDE, request, serviceClient } from '../support/http.ts';

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

  test('TR3: badge-sim record makes the same scenario of a trace as of the recording of the same session', async () => {
    const trace = join(dir, 'same.trace.gz');
    const recording = join(dir, 'same.jsonl');
    {
      const stub = await startStub({ seed: 1, trace });
      const written = writeRecordingTo(
        stub.core.recorder,
        openRecordingFile(recording),
        recording,
        () => {},
      );
      const fleet = await startFleet({ stub, devices: ['350000000000001'] });
      await fleet.waitUntilConnected();
      await serviceClient(stub).alert({ notification: 'Spill', groups: ['Nurses'] });
      await controlClient(stub).advance('5s');
      await controlClient(stub).tap('350000000000001');
      await fleet.close();
      await stub.close();
      written.close();
    }
    const fromTrace = runCli(['record', trace]);
    const fromRecording = runCli(['record', recording]);
    expect(fromTrace.status).toBe(0);
    expect(fromTrace.stdout).toContain('notification: Spill');
    // The same but for the file's name, which the scenario's name and header say.
    const named = (text: string, file: string) =>
      text.replaceAll(file, 'FILE').replaceAll(file.slice(dir.length + 1), 'FILE');
    expect(named(fromTrace.stdout, trace)).toBe(named(fromRecording.stdout, recording));
  });

  test('TR3 TR4: record refuses a truncated trace with the reader’s message, exit 2', async () => {
    const { readFileSync, writeFileSync } = await import('node:fs');
    const whole = readFileSync(join(dir, 'same.trace.gz'));
    const cut = join(dir, 'cut.trace.gz');
    writeFileSync(cut, whole.subarray(0, whole.length - 20));
    const result = runCli(['record', cut]);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain(`${cut}: the trace is truncated`);
  });
});
