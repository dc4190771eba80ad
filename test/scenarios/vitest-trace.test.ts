/**
 * A `badgeTest`'s trace (TR13): the `trace` fixture on, what the file holds once the test is
 * over, and retain-on-failure keeping a failed test's trace only.
 */
import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { readTrace } from '../../input/read-trace.ts';
import { traceFileName } from '../../scenarios/runner/run-trace.ts';
import { badgeTest } from '../../scenarios/vitest.ts';
import { closeTestTrace, defaultTestTrace, traceTest } from '../../scenarios/vitest-trace.ts';
import { startStub } from '../../server-stub/start-stub.ts';
import { serviceClient } from '../support/http.ts';

const dir = mkdtempSync(join(tmpdir(), 'badge-sim-vitest-trace-'));
const BEN = '350000000000002';

describe('TR13: a badgeTest with trace on', () => {
  const traced = badgeTest.override({ trace: { mode: 'on', dir } });
  let file = '';

  traced('an alert Ben acknowledges', async ({ stub, fleet, task }) => {
    file = join(dir, traceFileName(task.file.filepath, task.fullName));
    await serviceClient(stub).alert({ notification: 'Code blue', groups: ['Nurses'], quorum: 1 });
    await fleet.advanceBy(10_000);
    fleet.badge(BEN).tap();
    await fleet.settled();
  });

  afterAll(() => {
    const { header, records } = readTrace(file);
    expect(header).toMatchObject({ source: 'run', scenario: expect.stringContaining('an alert') });
    const kinds = new Set(records.map((r) => r.kind));
    for (const kind of ['session', 'request', 'command', 'event', 'alert', 'tap', 'end'])
      expect(kinds).toContain(kind);
    const ben = records.filter((r) => r.kind === 'transition' && r.device === BEN);
    expect(ben.map((r) => r.event)).toEqual(expect.arrayContaining(['PLAY', 'TAP']));
    expect(records.find((r) => r.kind === 'verdict')).toMatchObject({ passed: true });
    expect(records.at(-1)!.kind).toBe('end');
  });
});

describe('TR13: retain-on-failure', () => {
  test('a passing test’s trace is removed, a failing one’s kept with its error; off writes none', async () => {
    const here = mkdtempSync(join(dir, 'retain-'));
    const trace = { mode: 'retain-on-failure' as const, dir: here };
    const passing = await startStub();
    traceTest(passing, trace, { file: 'a.test.ts', name: 'passes' });
    expect(await closeTestTrace(passing, [], () => passing.close())).toBeUndefined();
    const failing = await startStub();
    traceTest(failing, trace, { file: 'a.test.ts', name: 'fails' });
    const kept = await closeTestTrace(failing, [{ message: 'expected 1 to be 2' }], () =>
      failing.close(),
    );
    expect(kept).toBe(join(here, 'a-test-ts--fails.trace.gz'));
    expect(readdirSync(here)).toEqual(['a-test-ts--fails.trace.gz']);
    expect(readTrace(kept!).records.find((r) => r.kind === 'verdict')).toMatchObject({
      passed: false,
      failures: [{ what: 'test', message: 'expected 1 to be 2' }],
    });
    const off = await startStub();
    traceTest(off, { mode: 'off', dir: join(here, 'off') }, { file: 'a.test.ts', name: 'off' });
    await closeTestTrace(off, [], () => off.close());
    expect(existsSync(join(here, 'off'))).toBe(false);
  });

  test('the default is run --trace’s: retain-on-failure under CI, else off', () => {
    const ci = process.env.CI;
    try {
      process.env.CI = '1';
      expect(defaultTestTrace()).toBe('retain-on-failure');
      delete process.env.CI;
      expect(defaultTestTrace()).toBe('off');
    } finally {
      if (ci === undefined) delete process.env.CI;
      else process.env.CI = ci;
    }
  });
});
