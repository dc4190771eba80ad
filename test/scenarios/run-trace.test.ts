/** `badge-sim run --trace` (TR5, TR8, TR9): a scenario's trace, what it holds, and the instant folded from it. */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { describe, expect, test } from 'vitest';
import { readTrace } from '../../input/read-trace.ts';
import { foldTrace, traceAt } from '../../input/trace-instant.ts';
import { loadScenarioFile, loadScenarioText } from '../../scenarios/format/load-scenario.ts';
import { createConsoleReporter } from '../../scenarios/reports/console.reporter.ts';
import {
  createHtmlReporter,
  type PageData,
  traceLink,
} from '../../scenarios/reports/html.reporter.ts';
import { createJsonReporter } from '../../scenarios/reports/json.reporter.ts';
import { runScenario } from '../../scenarios/runner/run-scenario.ts';
import { runSuite } from '../../scenarios/runner/run-suite.ts';
import { traceFileName } from '../../scenarios/runner/run-trace.ts';

const SINGLE_ACK = 'scenarios/catalogue/single-acknowledgement.scenario.yaml';
const BEN = '350000000000002';
const ADA = '350000000000001';

describe('a scenario’s trace', () => {
  test('TR5 TR8 TR9: the stub’s records, each badge’s transitions, each step and the verdict, in seq order; the fold at the end is what the run reports', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'badge-sim-run-trace-'));
    const kept: string[] = [];
    const report = await runScenario(loadScenarioFile(SINGLE_ACK), {
      trace: { keep: 'on', dir, onKept: (file) => kept.push(file) },
    });
    expect(report.passed).toBe(true);
    const file = join(dir, 'single-acknowledgement--single-acknowledgement.trace.gz');
    expect(kept).toEqual([file]);
    const { header, records } = readTrace(file);
    expect(header).toMatchObject({ source: 'run', scenario: 'Single acknowledgement' });
    expect(records.map((r) => r.seq)).toEqual(records.map((_, i) => i + 1));
    const kinds = new Set(records.map((r) => r.kind));
    for (const kind of ['session', 'connect', 'request', 'command', 'event', 'alert', 'tap'])
      expect(kinds).toContain(kind);
    expect(records.filter((r) => r.kind === 'step')).toEqual([
      expect.objectContaining({ index: 0, at: 0, action: 'alert', as: 'spill', status: 200 }),
    ]);
    expect(records.filter((r) => r.kind === 'verdict')).toEqual([
      expect.objectContaining({ passed: true, failures: [] }),
    ]);
    // Ben's machine: the alert arrives and plays, his tap, the speech that follows.
    const ben = records.filter((r) => r.kind === 'transition' && r.device === BEN);
    expect(ben.map((r) => r.event)).toContain('PLAY');
    expect(ben.map((r) => r.event)).toContain('TAP');
    const play = ben.find((r) => r.event === 'PLAY')!;
    expect(play).toMatchObject({
      current: { kind: 'alert', text: 'Spill in ward 3' },
      queue: [],
    });
    expect(play.to).toMatch(/playing$/);
    // At the verdict, every badge and the alert are as the run's report says.
    const end = foldTrace(records, records.findIndex((r) => r.kind === 'verdict') + 1);
    expect(Object.keys(report.actual.states)).toHaveLength(3);
    for (const [device, state] of Object.entries(report.actual.states))
      expect(end.badges[device]!.state?.split('.').at(-1)).toBe(state);
    expect(end.badges[BEN]!.online).toBe(true);
    expect(end.badges[ADA]!.state).toBe('online.awaiting-ack');
    const spill = report.actual.tasks.spill!;
    expect(end.alerts[spill]).toMatchObject({
      state: 'alerting',
      acknowledgements: 1,
      acknowledged: [BEN],
    });
    // At 11 s Ben has not tapped yet: the alert is pending on him.
    const before = traceAt(records, '2026-01-01T00:00:11.000000Z');
    expect(before.alerts[spill]!.acknowledged).toEqual([]);
    expect(before.alerts[spill]!.pending).toContain(BEN);
    expect(before.badges[BEN]).toMatchObject({ state: 'online.awaiting-ack', current: null });
    // Half a second in, the alert's first play is still on his badge.
    const playing = traceAt(records, '2026-01-01T00:00:00.500000Z').badges[BEN]!;
    expect(playing).toMatchObject({
      state: 'online.playing',
      current: { kind: 'alert', task: spill },
    });
  });

  test('TR8: retain-on-failure removes a passing scenario’s trace and keeps a failing one’s, with the failure in its verdict', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'badge-sim-run-trace-'));
    const kept: string[] = [];
    const trace = {
      keep: 'retain-on-failure' as const,
      dir,
      onKept: (file: string) => kept.push(file),
    };
    await runScenario(loadScenarioFile(SINGLE_ACK), { trace });
    expect(existsSync(join(dir, traceFileName(SINGLE_ACK, 'Single acknowledgement')))).toBe(false);
    const failing = readFileSync(SINGLE_ACK, 'utf8')
      .replace('name: Single acknowledgement', 'name: Single acknowledgement, wrongly expected')
      .replace('acknowledgements: 1', 'acknowledgements: 2');
    const report = await runScenario(loadScenarioText(failing, SINGLE_ACK), { trace });
    expect(report.passed).toBe(false);
    const file = join(
      dir,
      'single-acknowledgement--single-acknowledgement-wrongly-expected.trace.gz',
    );
    expect(kept).toEqual([file]);
    const verdict = readTrace(file).records.find((r) => r.kind === 'verdict')!;
    expect(verdict).toMatchObject({ passed: false });
    expect((verdict.failures as { message: string }[])[0]!.message).toBe(
      report.failures[0]!.message,
    );
  });

  test('TR11: the reports name a kept trace: console and JSON as written, HTML relative to its own folder', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'badge-sim-run-trace-'));
    const failing = join(dir, 'wrong.scenario.yaml');
    writeFileSync(
      failing,
      readFileSync(SINGLE_ACK, 'utf8')
        .replace('name: Single acknowledgement', 'name: Wrongly expected')
        .replace('acknowledgements: 1', 'acknowledgements: 2'),
    );
    let consoleText = '';
    const out = new Writable({
      write(chunk, _encoding, done) {
        consoleText += String(chunk);
        done();
      },
    });
    const summary = await runSuite([SINGLE_ACK, failing], {
      reporters: [
        createConsoleReporter(out),
        createJsonReporter(),
        createHtmlReporter(undefined, { output: join(dir, 'reports', 'run.html') }),
      ],
      trace: { keep: 'retain-on-failure', dir: join(dir, 'traces') },
    });
    const kept = join(dir, 'traces', 'wrong--wrongly-expected.trace.gz');
    expect(summary.reports.map((r) => r.trace)).toEqual([undefined, kept]);
    expect(consoleText).toContain(`  trace: ${kept}\n`);
    expect(consoleText.match(/trace: /g)).toHaveLength(1);
    const json = JSON.parse(summary.outputs[0]!) as { scenarios: { trace?: string }[] };
    expect(json.scenarios.map((s) => s.trace)).toEqual([undefined, kept]);
    const html = summary.outputs[1]!;
    const data = JSON.parse(/id="report-data">(.*?)<\/script>/s.exec(html)![1]!) as PageData;
    expect(data.scenarios.map((s) => s.trace)).toEqual([
      undefined,
      '../traces/wrong--wrongly-expected.trace.gz',
    ]);
    expect(traceLink('my traces/a#1.trace.gz', '.')).toBe('my%20traces/a%231.trace.gz');
  });

  test('a run that asks for no trace writes none and gives its fleet no inspect', async () => {
    const report = await runScenario(loadScenarioFile(SINGLE_ACK));
    expect(report.passed).toBe(true);
  });
});
