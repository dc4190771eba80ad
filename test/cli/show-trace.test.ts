/**
 * `badge-sim show-trace` (issue 33 points 2, 3 and 6; TV5): the page served on 127.0.0.1 until
 * Ctrl+C, or written whole with --out; a session recording opened like a trace; a truncated,
 * foreign or newer-format file refused with the reader's message, exit 2. One scenario run in
 * this process makes the trace; two commands run as a user runs them.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { beforeAll, describe, expect, test } from 'vitest';
import { runShowTrace } from '../../cli/show-trace/run-show-trace.ts';
import { tracePageData } from '../../cli/show-trace/trace-page-data.ts';
import { readTrace } from '../../input/read-trace.ts';
import { TRACE_ONLY_KINDS } from '../../protocol/recording.schema.ts';
import { loadScenarioFile } from '../../scenarios/format/load-scenario.ts';
import { runScenario } from '../../scenarios/runner/run-scenario.ts';
import { runCliAsync, startCli } from '../support/cli.ts';

const SINGLE_ACK = 'scenarios/catalogue/single-acknowledgement.scenario.yaml';
const dir = mkdtempSync(join(tmpdir(), 'badge-sim-show-trace-'));
let trace: string;

beforeAll(async () => {
  const kept: string[] = [];
  await runScenario(loadScenarioFile(SINGLE_ACK), {
    trace: { keep: 'on', dir, onKept: (file) => kept.push(file) },
  });
  trace = kept[0]!;
}, 60_000);

describe('badge-sim show-trace', () => {
  test('TV5: serves the page on 127.0.0.1 at a free port (--port 0), says its URL, answers 404 naming the path elsewhere, and stops on Ctrl+C', async () => {
    await using cli = await startCli(['show-trace', trace, '--port', '0'], /Ctrl\+C stops/);
    const url = /at (http:\/\/127\.0\.0\.1:\d+\/) \(Ctrl\+C stops\)/.exec(cli.output())![1]!;
    const page = await fetch(url);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await page.text()).toContain('<script type="application/json" id="trace-data">');
    const elsewhere = await fetch(new URL('/trace.gz', url));
    expect(elsewhere.status).toBe(404);
    expect(await elsewhere.json()).toMatchObject({ error: 'not_found', field: 'path' });
    const exited = new Promise((resolve) => cli.child.once('exit', resolve));
    cli.child.kill('SIGINT');
    expect(await exited).toBe(0);
  });

  test('TV5: --out writes one self-contained page, asking for nothing outside itself', async () => {
    const out = join(dir, 'page.html');
    await runShowTrace(trace, { out, port: 0 });
    const html = readFileSync(out, 'utf8');
    expect(html).toContain("default-src 'none'");
    expect(html).not.toMatch(/\s(src|href)=/);
    // The fold the page runs is the reader's own function.
    expect(html).toContain('const foldTrace = function foldTrace(');
    expect(html).toContain('"scenario":"Single acknowledgement"');
  });

  test('TV5: a session recording (stub --record: the same records, no header) opens as its trace does', async () => {
    const { records } = readTrace(trace);
    const recorded = records.filter((record) => !TRACE_ONLY_KINDS.includes(record.kind));
    const file = join(dir, 'session.jsonl');
    writeFileSync(file, recorded.map((record) => `${JSON.stringify(record)}\n`).join(''));
    const data = await tracePageData(file);
    expect(data).toMatchObject({ source: 'recording', header: null, failures: [] });
    expect(data.records).toEqual(recorded);
    expect(data.names).toMatchObject({ '350000000000002': 'Ben Okafor' });
  });

  test('TV5: a truncated, foreign or newer-format file, an --out it cannot write, a port taken: each refused saying what is wrong; the command exits 2 with it', async () => {
    const whole = readFileSync(trace);
    const truncated = join(dir, 'truncated.trace.gz');
    writeFileSync(truncated, whole.subarray(0, whole.length - 20));
    const foreign = join(dir, 'foreign.trace.gz');
    writeFileSync(foreign, gzipSync('{"format":"other-tool/3"}\n'));
    const newer = join(dir, 'newer.trace.gz');
    writeFileSync(newer, gzipSync('{"format":"badge-sim-trace/2"}\n'));
    await expect(tracePageData(foreign)).rejects.toThrow(
      /foreign\.trace\.gz:1: not a badge-sim trace/,
    );
    await expect(tracePageData(newer)).rejects.toThrow(/of a newer format \(badge-sim-trace\/2\)/);
    // An --out it cannot write, a port it cannot listen on: what to do instead.
    await expect(
      runShowTrace(trace, { out: join(dir, 'no/such/folder.html'), port: 0 }),
    ).rejects.toThrow(
      `badge-sim: show-trace --out ${join(dir, 'no/such/folder.html')}: cannot write it (ENOENT): give a file path in a folder you can write`,
    );
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const { port } = taken.address() as AddressInfo;
    await expect(runShowTrace(trace, { port })).rejects.toThrow(
      `badge-sim: show-trace --port ${port}: cannot listen on 127.0.0.1:${port} (EADDRINUSE): give another port, or 0 for any free one`,
    );
    taken.close();
    const result = await runCliAsync(['show-trace', truncated, '--out', join(dir, 'never.html')]);
    expect(result.stderr).toBe(
      `badge-sim: ${truncated}: the trace is truncated: its compressed stream ends early (was the run or stub stopped before it closed the file, or the file cut in a copy?)\n`,
    );
    expect(result.status).toBe(2);
  });
});
