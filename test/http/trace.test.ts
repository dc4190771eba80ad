/** Traces of a stub (`startStub({ trace })`, TR1–TR7): what the file holds, in order, and what is refused. */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { describe, expect, test } from 'vitest';
import { StubControlClient } from '../../client/control-client.ts';
import { readTrace, TraceError } from '../../input/read-trace.ts';
import { foldTrace, traceAt } from '../../input/trace-instant.ts';
import { startStub } from '../../server-stub/start-stub.ts';
import { startTrace } from '../../server-stub/trace-file.ts';
import { startFleet } from '../../simulator/fleet.ts';
import { controlClient, RIVERSIDE, serviceClient } from '../support/http.ts';

const dir = mkdtempSync(join(tmpdir(), 'badge-sim-trace-'));
const BADGE = '350000000000001';

/** A traced stub's session: a badge, an alert it hears, a tap that acknowledges it. */
async function tracedSession(file: string) {
  const stub = await startStub({ seed: 1, trace: file, controlToken: 'a-control-token-0001' });
  try {
    const control = new StubControlClient(stub.url, { controlToken: 'a-control-token-0001' });
    await using fleet = await startFleet({ stub, devices: [BADGE] });
    await fleet.waitUntilConnected();
    await serviceClient(stub).alert({
      notification: 'Spill',
      groups: ['Nurses'],
      key: 'a-secret-in-a-body',
    });
    const alert = await serviceClient(stub).alert({ notification: 'Spill', groups: ['Nurses'] });
    await control.advance('5s');
    await control.tap(BADGE);
    return alert.body.task_id as string;
  } finally {
    await stub.close();
  }
}

describe('startStub({ trace })', () => {
  test('TR1 TR6: a header, then the session in order: requests, the badge, commands, events, and each alert after each change', async () => {
    const file = join(dir, 'session.trace.gz');
    const taskId = await tracedSession(file);
    const { header, records } = readTrace(file);
    expect(header).toMatchObject({ format: 'badge-sim-trace/1', source: 'stub', limit: 20_000 });
    expect(records.map((r) => r.seq)).toEqual(records.map((_, i) => i + 1));
    const kinds = records.map((r) => r.kind);
    expect(kinds[0]).toBe('session');
    expect(kinds.at(-1)).toBe('end');
    for (const kind of ['connect', 'request', 'command', 'event', 'tap', 'alert'])
      expect(kinds).toContain(kind);
    const alerts = records.filter((r) => r.kind === 'alert' && r.task_id === taskId);
    // Three nurses, one badge online: its tap is one acknowledgement of the quorum of three.
    const others = ['350000000000002', '350000000000003'];
    expect(alerts.map((r) => [r.cause, r.state, r.pending, r.acknowledged])).toEqual([
      ['start', 'alerting', [BADGE, ...others], []],
      ['play', 'alerting', [BADGE, ...others], []],
      ['acknowledged', 'alerting', others, [BADGE]],
    ]);
    expect(alerts[2]).toMatchObject({
      quorum: 3,
      acknowledgements: 1,
      outcome: null,
      timeout_at: '2026-01-01T00:05:00.000000Z',
    });
  });

  test('TR10: next_repeat_at follows the engine: null before the first play, then each repeat, null once ended; an older trace folds to null', async () => {
    const file = join(dir, 'repeats.trace.gz');
    let taskId = '';
    {
      await using stub = await startStub({ seed: 1, trace: file });
      await using fleet = await startFleet({ stub, devices: [BADGE] });
      await fleet.waitUntilConnected();
      const alert = await serviceClient(stub).alert({ notification: 'Spill', groups: ['Nurses'] });
      taskId = alert.body.task_id as string;
      await controlClient(stub).advance('65s');
      await serviceClient(stub).cancel(taskId);
    }
    const { records } = readTrace(file);
    const alerts = records.filter((r) => r.kind === 'alert' && r.task_id === taskId);
    expect(alerts.map((r) => [r.cause, r.next_repeat_at])).toEqual([
      ['start', null],
      ['play', '2026-01-01T00:00:30.000000Z'],
      ['play', '2026-01-01T00:01:00.000000Z'],
      ['play', '2026-01-01T00:01:30.000000Z'],
      ['end', null],
    ]);
    // Each `play` record comes after the turn's command, which it follows in seq.
    const firstPlay = records.findIndex((r) => r.kind === 'alert' && r.cause === 'play');
    expect(records[firstPlay - 1]).toMatchObject({ kind: 'command', command: 'play' });
    expect(traceAt(records, '2026-01-01T00:00:45.000000Z').alerts[taskId]).toMatchObject({
      next_repeat_at: '2026-01-01T00:01:00.000000Z',
    });
    const older = records.map((r) => {
      const { next_repeat_at: _, ...rest } = r;
      return rest as typeof r;
    });
    expect(traceAt(older, '2026-01-01T00:00:45.000000Z').alerts[taskId]!.next_repeat_at).toBe(null);
  });

  test('TR14: a snapshot record every N records; the state at any instant is the same from the nearest one as from the start', async () => {
    const file = join(dir, 'snapshots.trace.gz');
    {
      await using stub = await startStub({ seed: 1 });
      const writer = startTrace(stub.core, file, { source: 'stub' }, undefined, 5);
      await using fleet = await startFleet({ stub, devices: [BADGE, '350000000000002'] });
      await fleet.waitUntilConnected();
      const alert = await serviceClient(stub).alert({ notification: 'Spill', groups: ['Nurses'] });
      await controlClient(stub).advance('65s');
      await new StubControlClient(stub.url).tap(BADGE);
      await serviceClient(stub).cancel(alert.body.task_id as string);
      await fleet.close();
      await stub.close();
      await writer.close();
    }
    const { header, records } = readTrace(file);
    expect(header).toMatchObject({ snapshot_every: 5 });
    const snapshots = records.filter((r) => r.kind === 'snapshot');
    const others = records.filter((r) => r.kind !== 'snapshot');
    expect(snapshots).toHaveLength(Math.floor(others.length / 5));
    const state = ({ badges, alerts }: ReturnType<typeof foldTrace>) => ({ badges, alerts });
    let folded = 0;
    for (let count = 0; count <= records.length; count++) {
      if (count > 0 && records[count - 1]!.kind !== 'snapshot') folded++;
      expect(state(foldTrace(records, count))).toEqual(state(foldTrace(others, folded)));
    }
    expect(Object.keys(foldTrace(records, records.length).alerts)).toHaveLength(1);
    expect(foldTrace(records, records.length).badges[BADGE]!.online).toBe(false);
  });

  test('TR7: no API key, refresh token, device key, control token or secret body field in the file', async () => {
    const file = join(dir, 'secrets.trace.gz');
    await tracedSession(file);
    const text = gunzipSync(readFileSync(file)).toString();
    expect(text).toContain('recorded-api-key-100001-1');
    for (const secret of [
      RIVERSIDE.key,
      'badge-key-0001',
      'demo-refresh-token',
      'a-secret-in-a-body',
      'a-control-token-0001',
    ])
      expect(text).not.toContain(secret);
  });

  test('TR2: DELETE /_stub/recording empties the recording but the trace goes on to the stub’s end', async () => {
    const file = join(dir, 'deleted.trace.gz');
    {
      await using stub = await startStub({ seed: 1, trace: file });
      const control = new StubControlClient(stub.url);
      await control.stopRecording();
      expect((await control.recording()).recording).toBe(true);
      await controlClient(stub).advance('1s');
    }
    expect(readTrace(file).records.map((r) => r.kind)).toEqual(['session', 'clock', 'end']);
  });

  test('a file that cannot be written: startStub refuses, naming it, before anything listens', async () => {
    const file = join(dir, 'no-such-folder', 'x.trace.gz');
    await expect(startStub({ trace: file })).rejects.toThrow(
      `badge-sim: trace ${file}: cannot write it (its folder does not exist): give a file path in a folder you can write`,
    );
  });
});

describe('readTrace: bad input (TR4)', () => {
  const write = (name: string, bytes: Buffer | string) => {
    const file = join(dir, name);
    writeFileSync(file, bytes);
    return file;
  };
  const header = JSON.stringify({
    format: 'badge-sim-trace/1',
    source: 'stub',
    started: '2026-01-01T00:00:00.000000Z',
    limit: 1,
    max_chars: 1,
  });

  test('a truncated file', async () => {
    const whole = join(dir, 'whole.trace.gz');
    await tracedSession(whole);
    const bytes = readFileSync(whole);
    const file = write('cut.trace.gz', bytes.subarray(0, bytes.length - 20));
    expect(() => readTrace(file)).toThrow(
      `badge-sim: ${file}: the trace is truncated: its compressed stream ends early`,
    );
  });

  test('a foreign file: not gzip, a recording, gzip of something else', () => {
    const plain = write('plain.txt', 'hello');
    expect(() => readTrace(plain)).toThrow(TraceError);
    expect(() => readTrace(plain)).toThrow(
      `badge-sim: ${plain}: not a badge-sim trace: it is not gzip-compressed`,
    );
    const recording = write('rec.jsonl', '{"seq":1}\n');
    expect(() => readTrace(recording)).toThrow(
      'a session recording of stub --record is read by badge-sim record',
    );
    const other = write('other.gz', gzipSync('{"name":"x"}\n'));
    expect(() => readTrace(other)).toThrow(
      `badge-sim: ${other}:1: not a badge-sim trace: its first line has no "format": "badge-sim-trace/1"`,
    );
  });

  test('a newer format, and a bad record named by its line', () => {
    const newer = write('newer.trace.gz', gzipSync(`${header.replace('trace/1', 'trace/2')}\n`));
    expect(() => readTrace(newer)).toThrow(
      `badge-sim: ${newer}: the trace is of a newer format (badge-sim-trace/2) than this badge-sim reads (badge-sim-trace/1)`,
    );
    const bad = write(
      'bad.trace.gz',
      gzipSync(
        `${header}\n{"seq":1,"time":"2026-01-01T00:00:00.000000Z","kind":"session"}\n{"seq":2,"time":"soon","kind":"tap"}\n`,
      ),
    );
    expect(() => readTrace(bad)).toThrow(
      `badge-sim: ${bad}:3: not a trace record: "time" is not a timestamp`,
    );
    expect(() => readTrace(join(dir, 'absent.gz'))).toThrow('cannot read it (no such file)');
  });
});
