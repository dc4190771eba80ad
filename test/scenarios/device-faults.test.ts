import { describe, expect, test } from 'vitest';
import { defineScenario } from '../../scenarios/format/load-scenario.ts';
import { createJsonReporter } from '../../scenarios/reports/json.reporter.ts';
import { runScenario } from '../../scenarios/runner/run-scenario.ts';
import { runSuite } from '../../scenarios/runner/run-suite.ts';
import { expectRefused, scenarioFile } from '../support/scenario-files.ts';

const file = scenarioFile;

const BASE = `name: Device faults
proves: Device faults load and run.
badges: { group: Pharmacy }
behaviours:
  Omar Haddad: { tap: { lose: { chance: 0.05 } } }
timeline:
  - at: 0s
    alert: { notification: Fridge alarm, groups: [Pharmacy], quorum: 1 }
    as: fridge
  - { at: 5s, tap: Lena Ortiz }
duration: 1m
expect:
  tasks:
    fridge: { acknowledgements: 1 }
`;

describe('loading', () => {
  test.each([
    [
      'a probability of 2',
      BASE.replace('chance: 0.05', 'chance: 2'),
      ':5:33: behaviours.Omar Haddad.tap.lose.chance must be <= 1',
    ],
    [
      'a probability that is not a number (.nan)',
      BASE.replace('chance: 0.05', 'chance: .nan'),
      ':5:33: behaviours.Omar Haddad.tap.lose.chance must be <= 1',
    ],
    [
      'both chance and taps',
      BASE.replace('chance: 0.05', 'chance: 0.05, taps: [1]'),
      'behaviours.Omar Haddad.tap.lose gives both chance and taps',
    ],
    [
      'a delay range written backwards',
      BASE.replace('lose: { chance: 0.05 }', 'delay: { by: 5s..1s }'),
      "behaviours.Omar Haddad.tap.delay.by '5s..1s' is not a duration of at most 3650 days or a range low..high (low first)",
    ],
    [
      'a negative duplicate count',
      BASE.replace('lose: { chance: 0.05 }', 'duplicate: { times: -1 }'),
      'behaviours.Omar Haddad.tap.duplicate.times must be >= 2',
    ],
    [
      'a drop with neither on_play nor chance',
      BASE.replace('tap: { lose: { chance: 0.05 } }', 'drop: { for: 10s }'),
      'behaviours.Omar Haddad.drop needs one of on_play (the Nth alert play) or chance (of each play)',
    ],
    [
      'a battery drain of 0',
      BASE.replace('tap: { lose: { chance: 0.05 } }', 'battery: { drain: 0 }'),
      'behaviours.Omar Haddad.battery.drain must be >= 0.01',
    ],
    [
      'a tap step both lost and delayed',
      BASE.replace('tap: Lena Ortiz }', 'tap: Lena Ortiz, lost: true, delay: 2s }'),
      ':10:32: timeline[1].lost: a lost tap never leaves, so it is neither delayed nor duplicated',
    ],
    [
      'a gap without duplicate',
      BASE.replace('tap: Lena Ortiz }', 'tap: Lena Ortiz, gap: 2s }'),
      'timeline[1].gap is the time between the copies of a duplicated tap: give duplicate too',
    ],
    [
      'a duplicate of 11 (at most 10 copies)',
      BASE.replace('tap: Lena Ortiz }', 'tap: Lena Ortiz, duplicate: 11 }'),
      'timeline[1].duplicate must be <= 10',
    ],
    [
      'a battery level of 101',
      BASE.replace('tap: Lena Ortiz }', 'battery: Lena Ortiz, level: 101 }'),
      'timeline[1].level must be <= 100',
    ],
    [
      'a drop longer than 3650 days',
      BASE.replace('tap: Lena Ortiz }', 'drop: Lena Ortiz, for: 3651d }'),
      "timeline[1].for '3651d' is not a duration of whole milliseconds up to 3650 days",
    ],
  ])('%s is refused: the error names the file, the line and the field', (_name, text, message) =>
    expectRefused(text, message),
  );
});

describe('running', () => {
  test('a delayed tap step acknowledges that much later; a drop step brings the badge back after `for`', async () => {
    const report = await runScenario(
      defineScenario({
        name: 'Delay and drop steps',
        proves: 'The delay of a tap and the length of a drop run on the badge clock.',
        badges: { group: 'Pharmacy' },
        timeline: [
          {
            at: '0s',
            alert: { notification: 'Fridge alarm', groups: ['Pharmacy'] },
            as: 'fridge',
          },
          { at: '5s', tap: 'Lena Ortiz', delay: '3s' },
          { at: '10s', drop: 'Omar Haddad', for: '15s' },
          { at: '40s', tap: 'Omar Haddad' },
        ],
        duration: '1m',
        expect: {
          events: {
            only: true,
            items: [
              { type: 'start', at: '0s' },
              { type: 'acknowledged', device: 'Lena Ortiz', at: '8s' },
              { type: 'acknowledged', device: 'Omar Haddad', at: '40s' },
              { type: 'end', at: '40s' },
            ],
          },
          heard: {
            'Omar Haddad': {
              includes: [
                { kind: 'alert', at: '0s' },
                { kind: 'alert', at: '25s' },
              ],
            },
          },
        },
      }),
    );
    expect(report.failures).toEqual([]);
  });

  test('a devices expectation that does not hold names the device and the field', async () => {
    const report = await runScenario(
      defineScenario({
        name: 'Battery expectation',
        proves: 'A wrong battery expectation fails readably.',
        badges: { devices: ['Lena Ortiz'] },
        timeline: [{ at: '1s', battery: 'Lena Ortiz', level: 30 }],
        expect: { devices: { 'Lena Ortiz': { battery_level: 20, battery_low: true } } },
      }),
    );
    expect(report.failures).toEqual([
      expect.objectContaining({
        what: 'device Lena Ortiz (350000000000003)',
        message: 'battery_level is 30, expected 20; battery_low is false, expected true',
      }),
    ]);
  });

  test('5 % of taps lost over a fleet: the same seed loses the same taps twice, another seed others', async () => {
    const alerts = Array.from({ length: 20 }, (_, i) => [
      `  - { at: ${i * 60}s, alert: { notification: Round ${i}, groups: [Nurses], quorum: 3 } }`,
      `  - { at: ${i * 60 + 5}s, tap: Ada Mensah }`,
      `  - { at: ${i * 60 + 5}s, tap: Ben Okafor }`,
      `  - { at: ${i * 60 + 5}s, tap: Lena Ortiz }`,
    ]);
    const path = file(
      'lossy.scenario.yaml',
      `name: Lossy taps
proves: A fleet loses about one tap in twenty.
badges: { group: Nurses }
behaviours:
  '*': { tap: { lose: { chance: 0.05 } } }
timeline:
${alerts.flat().join('\n')}
duration: 20m
expect: {}
`,
    );
    const json = async (seed: number) =>
      (await runSuite([path], { reporters: [createJsonReporter()], seed })).outputs[0]!;
    const acknowledged = (report: string) =>
      (report.match(/"type": ?"acknowledged"/g) ?? []).length;
    const [first, second, other] = [await json(1), await json(1), await json(2)];
    expect(first).toBe(second);
    expect(other).not.toBe(first);
    // 60 taps; a handful lost, never most.
    expect(acknowledged(first)).toBeLessThan(60);
    expect(acknowledged(first)).toBeGreaterThan(45);
  });
});
