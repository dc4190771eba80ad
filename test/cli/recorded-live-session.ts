/**
 * What the scenario made of the running-clock session of `record-session.test.ts` must say
 * besides its steps and events (issue 29 point 3): what each badge heard, a refusal's code and
 * field, the fixtures trimmed to what the session touched, every disconnect a step.
 */
import { expect } from 'vitest';

/** `scenario` as parsed from the YAML `record` wrote, `yaml` its text. */
export function expectWhatAPersonKeeps(scenario: any, yaml: string): void {
  // Each of the five went offline as the stub stopped: all five are steps, alike (RS14).
  const offline = scenario.timeline.filter((step: any) => step.offline).slice(5);
  expect(offline.map((step: any) => step.offline).sort()).toEqual(
    ['Ada Mensah', 'Ben Okafor', 'Lena Ortiz', 'Rosa Lindqvist', 'Front Desk'].sort(),
  );
  // A refusal: its status, code and field (RS15).
  expect(scenario.timeline.find((step: any) => step.alert?.notification === 'No group')).toEqual(
    expect.objectContaining({
      expect: { status: 400, body: { code: 'invalid_field', field: 'groups' } },
    }),
  );
  // What each badge heard, in order (RS17): the replays hear exactly this.
  const heard = Object.fromEntries(
    Object.entries(scenario.expect.heard).map(([who, h]: [string, any]) => [
      who,
      h.exactly.map(
        (clip: any) => `${clip.kind} ${clip.text}${clip.task ? ` (${clip.task})` : ''}`,
      ),
    ]),
  );
  expect(heard).toEqual({
    'Ada Mensah': ['alert Spill in ward 3 (spill-1)', 'speech Thanks (spill-1)'],
    'Ben Okafor': ['alert Spill in ward 3 (spill-1)', 'speech Thanks (spill-1)'],
    'Lena Ortiz': ['alert Spill in ward 3 (spill-1)'],
    'Rosa Lindqvist': ['alert Code grey (grey-1)', 'broadcast Visitors at the front desk'],
    // The broadcast waited behind Code grey until the cancel cut it.
    'Front Desk': ['alert Code grey (grey-1)', 'broadcast Visitors at the front desk'],
  });
  // The fixtures the session touched (RS16): the groups alerted with their members; no
  // Pharmacy, no Omar, no other account.
  const [riverside, ...others] = scenario.fixtures.accounts;
  expect(others).toEqual([]);
  expect(riverside.groups.map((g: any) => g.name)).toEqual(['Nurses', 'Security']);
  expect(riverside.devices).toHaveLength(5);
  expect(yaml).toContain('(left out: 1 account, 1 group, 1 device, 2 workflows)');
}
