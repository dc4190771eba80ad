/**
 * Scenarios as QA and developers use them: YAML errors that say where, readable failures,
 * byte-identical reports for a seed, external mode against a stub process, and `badge-sim run`.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import {
  defineScenario,
  loadScenarioFile,
  ScenarioError,
} from '../../scenarios/format/load-scenario.ts';
import { SCENARIO_SCHEMA_FILE, scenarioJsonSchema } from '../../scenarios/format/publish-schema.ts';
import { formatReport } from '../../scenarios/reports/console.reporter.ts';
import { createJsonReporter } from '../../scenarios/reports/json.reporter.ts';
import { runScenario } from '../../scenarios/runner/run-scenario.ts';
import { runSuite } from '../../scenarios/runner/run-suite.ts';
import { runCli, startStubProcess } from '../support/cli.ts';
import { expectRefused, QUORUM_OF_ONE } from '../support/scenario-files.ts';

const dir = mkdtempSync(join(tmpdir(), 'badge-sim-scenarios-'));
function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

/** Eight levels of ten aliases each: 10⁸ nodes if expanded. */
const ALIAS_BOMB = [
  'a0: &a0 [x, x, x, x, x, x, x, x, x, x]',
  ...Array.from(
    { length: 8 },
    (_, i) => `a${i + 1}: &a${i + 1} [${Array(10).fill(`*a${i}`).join(', ')}]`,
  ),
].join('\n');

const GOOD = QUORUM_OF_ONE;

describe('loading', () => {
  test.each([
    [
      'a step with no action',
      GOOD.replace('    alert: {', '    alrt: {'),
      ':8:5: timeline[0].alrt is no step kind or field of a step: did you mean alert?',
    ],
    [
      'a move to a latitude past the pole',
      GOOD.replace(
        'timeline:\n',
        'timeline:\n  - { at: 0s, move: Ada Mensah, location: { lat: 95, long: 18 } }\n',
      ),
      'timeline[0].location.lat must be <= 90',
    ],
    [
      'a bad duration',
      GOOD.replace('at: 0s', 'at: soon'),
      ':7:5: timeline[0].at must be a duration such as 30s, 5m, 2h, 1m30s or 1500ms',
    ],
    [
      'an unknown field in a step',
      GOOD.replace('as: runner', 'as: runner\n    colour: red'),
      ':10:5: timeline[0].colour is not a field here (fields here: at, as, expect, repeat, note, alert, auth, retry)',
    ],
    [
      'a wrong type deep in an expectation',
      GOOD.replace('acknowledgements: 1 }', 'acknowledgements: one }'),
      'expect.tasks.runner.acknowledgements must be integer',
    ],
    [
      'a task name no step has',
      GOOD.replace('runner: { outcome', 'runnr: { outcome'),
      "expect.tasks.runnr: no step is named 'runnr'",
    ],
    ['a missing proves line', GOOD.replace(/^proves:.*\n/m, ''), ':1:1: proves is required'],
    [
      'an unknown badge state',
      `${GOOD}  states:\n    Ada Mensah: sleeping\n`,
      'expect.states.Ada Mensah must be one of',
    ],
    [
      'an environment that is not one',
      GOOD.replace(
        '    as: runner',
        '    as: runner\n  - { at: 1s, device_info: Ada Mensah, environment: staging }',
      ),
      ':10:40: timeline[1].environment must be one of: pro, qa',
    ],
    [
      'a bearer choice that is not one',
      GOOD.replace(
        '    as: runner',
        '    as: runner\n  - { at: 1s, device_info: Ada Mensah, auth: wrong }',
      ),
      'timeline[1].auth must be one of: valid, none, id_token, other-environment',
    ],
    [
      'a step inside a jump (it would silently run at the jump’s end)',
      GOOD.replace(
        '    as: runner',
        '    as: runner\n  - { at: 10s, expire_tokens: true }\n  - { at: 20s, tap: Ada Mensah }',
      ),
      ':11:7: timeline[2].at 20s falls inside the jump of timeline[1] (10s → 2h10s): write at: 10s to run right after it, or 2h10s or later',
    ],
    [
      'a request path that climbs out of the service API',
      GOOD.replace(
        '    as: runner',
        '    as: runner\n  - { at: 1s, request: { method: POST, path: ../../../../oauth2/token } }',
      ),
      ":10:40: timeline[1].request.path '../../../../oauth2/token' must stay under /subscribers/{id}/api/v1/: no '..'",
    ],
    [
      'a jump longer than 3650 days (docs/decisions.md I3)',
      GOOD.replace('    as: runner', '    as: runner\n  - { at: 1s, jump: 3651d }'),
      ":10:15: timeline[1].jump '3651d' is not a duration of whole milliseconds up to 3650 days",
    ],
    [
      'an inline fixture group with no members (a group is one or more users)',
      GOOD.replace(
        'badges: { group: Nurses }',
        'fixtures:\n  accounts:\n    - subscriber_id: "1"\n      api_keys: [key-of-account-1]\n      groups: [{ id: "1", name: Nurses, members: [] }]\n      devices: []\nbadges: { group: Nurses }',
      ),
      ":7:41: fixtures.accounts[0].groups[0].members: group 'Nurses' has no members",
    ],
    [
      'an empty real_time (it says why the scenario waits real time, SP3)',
      GOOD.replace('badges: {', "real_time: ''\nbadges: {"),
      ':3:1: real_time must NOT have fewer than 1 characters',
    ],
    [
      'YAML that does not parse',
      GOOD.replace('badges: { group: Nurses }', 'badges: { group: Nurses'),
      ':4:',
    ],
  ])('%s: the error names the file, the line and the field', (_name, text, message) =>
    expectRefused(text, message),
  );

  test('real_time says why a scenario waits real time; the scenario keeps it (bench:scenarios times it apart, SP3)', () => {
    const why = 'the 2 s answer bound of a badge in another process is what it proves';
    const loaded = loadScenarioFile(
      file('real-time.scenario.yaml', GOOD.replace('badges: {', `real_time: ${why}\nbadges: {`)),
    );
    expect(loaded.scenario.real_time).toBe(why);
    expect(loadScenarioFile(file('plain.scenario.yaml', GOOD)).scenario.real_time).toBeUndefined();
  });

  test('the published JSON Schema is the model (npm run schema writes it)', () => {
    expect(readFileSync(SCENARIO_SCHEMA_FILE, 'utf8')).toBe(scenarioJsonSchema());
  });

  test('an alert step sends its body as written, so a scenario can send wrong ones', async () => {
    const report = await runScenario(
      defineScenario({
        name: 'Quorum as text',
        proves: 'A quorum given as text is refused, not coerced.',
        badges: 'none',
        timeline: [
          {
            at: '0s',
            alert: { notification: 'x', groups: ['Nurses'], quorum: '2' },
            expect: { status: 400, body: { field: 'quorum' } },
          },
        ],
        expect: { events: { only: true, items: [] } },
      }),
    );
    expect(report.failures).toEqual([]);
  });

  test('steps out of time order are refused', () => {
    expect(() =>
      defineScenario({
        name: 'x',
        proves: 'x',
        timeline: [
          { at: '10s', tap: 'Ada Mensah' },
          { at: '5s', tap: 'Ben Okafor' },
        ],
        expect: {},
      }),
    ).toThrow('timeline[1].at 5s is before the step above it');
  });
});

describe('running', () => {
  test('a passing scenario written in YAML, and the same in TypeScript', async () => {
    const fromYaml = await runScenario(loadScenarioFile(file('good.scenario.yaml', GOOD)));
    expect(fromYaml.failures).toEqual([]);
    expect(fromYaml.passed).toBe(true);
    const fromCode = await runScenario(
      defineScenario({
        name: 'Broadcast from code',
        proves: 'defineScenario runs like a file.',
        badges: { devices: ['Rosa Lindqvist'] },
        timeline: [
          {
            at: '0s',
            broadcast: { notification: 'Canteen open', groups: ['Security'] },
            expect: { status: 200 },
          },
        ],
        duration: '1m',
        expect: {
          events: { only: true, items: [] },
          heard: { 'Rosa Lindqvist': { exactly: [{ kind: 'broadcast', at: '0s' }] } },
        },
      }),
    );
    expect(fromCode.failures).toEqual([]);
  });

  test('a failing scenario shows expected and actual as timelines, the first difference marked, and how to run it again', async () => {
    const wrong = GOOD.replace(
      '{ type: end, status: normal, at: 5s }',
      '{ type: end, status: normal, at: 6s }',
    ).replace('[One runner, Covered]', '[One runner]');
    const report = await runScenario(loadScenarioFile(file('wrong.scenario.yaml', wrong)), {
      seed: 3,
    });
    expect(report.passed).toBe(false);
    const [events, heard] = report.failures;
    expect(events).toMatchObject({
      what: 'events (in this order, and no others)',
      firstDifference: 2,
    });
    expect(events!.expected[2]).toContain('at 6s');
    expect(events!.actual[2]).toContain('+5s');
    expect(heard).toMatchObject({
      what: 'heard by Ada Mensah (350000000000001) (texts)',
      firstDifference: 1,
    });
    const text = formatReport(report);
    expect(text).toContain('proves: The first tap ends the alert');
    expect(text).toMatch(/> at 6s\s+end status=normal\s+\+5s\s+end status=normal/);
    expect(text).toContain(`npx badge-sim run ${report.source} --seed 3`);
  });

  test('the same scenarios and seed give byte-identical JSON reports; another seed other ids', async () => {
    const path = file('determinism.scenario.yaml', GOOD);
    const json = async (seed: number) =>
      (await runSuite([path], { reporters: [createJsonReporter()], seed })).outputs[0]!;
    const [first, second, other] = [await json(7), await json(7), await json(8)];
    expect(first).toBe(second);
    expect(first).toContain('"event_id"');
    expect(first).toContain('"heard"');
    expect(other).not.toBe(first);
  });

  test('real-time mode runs on the wall clock, with a tolerance on times', async () => {
    const started = performance.now();
    const report = await runScenario(
      defineScenario({
        name: 'A one-second timeout in real time',
        proves:
          'Real-time mode waits for real: the alert times out about a second after it starts.',
        badges: { devices: ['Rosa Lindqvist'] },
        timeline: [
          { at: '0s', alert: { notification: 'Hi', groups: ['Security'], timeout: 1 }, as: 'hi' },
        ],
        duration: '1500ms',
        expect: {
          events: {
            only: true,
            items: [
              { type: 'start' },
              { type: 'timed_out', at: '1s', within: '400ms' },
              { type: 'end' },
            ],
          },
          tasks: { hi: { outcome: 'timed_out' } },
        },
      }),
      { mode: 'realtime' },
    );
    expect(report.failures).toEqual([]);
    expect(performance.now() - started).toBeGreaterThanOrEqual(1_400);
  });

  test('trigger steps: a token expiry makes the client refresh once, and wrong expectations of tokens and invocations fail readably', async () => {
    const scenario = (tokenRequests: number, workflow: string) =>
      defineScenario({
        name: 'Trigger, expire, trigger',
        proves: 'The client refreshes once after the access token expires.',
        badges: { devices: ['Front Desk'] },
        timeline: [
          {
            at: '0s',
            workflow: { id: 'wf_http_page_security', user: 'Front Desk' },
            expect: { status: 200 },
          },
          { at: '1m', expire_tokens: true },
          {
            at: '1m',
            workflow: { id: 'wf_http_page_security', user: 'Front Desk' },
            as: 'late',
            expect: { status: 200, body: { status: 'invoked' } },
          },
          {
            at: '2h2m',
            device_info: 'Front Desk',
            expect: { status: 200, body: { device_status: 'online' } },
          },
        ],
        expect: {
          token_requests: tokenRequests,
          invocations: [{ workflow }, { workflow, user: 'Front Desk' }],
          heard: {
            'Front Desk': {
              exactly: [
                { kind: 'speech', cause: 'workflow', at: '0s' },
                { kind: 'speech', cause: 'workflow', task: 'late', at: '2h1m' },
              ],
            },
          },
        },
      });
    const right = await runScenario(scenario(2, 'wf_http_page_security'));
    expect(right.failures).toEqual([]);
    expect(right.actual.token_requests).toBe(2);
    expect(right.actual.invocations.map((i) => i.at)).toEqual([
      '2026-01-01T00:00:00.000000Z',
      '2026-01-01T02:01:00.000000Z',
    ]);

    const wrong = await runScenario(scenario(1, 'wf_http_dock_call'));
    expect(wrong.failures.map((f) => f.what)).toEqual(['workflow invocations', 'token requests']);
    expect(wrong.failures[0]).toMatchObject({
      message: 'invocation 1 differs',
      expected: ['wf_http_dock_call', 'wf_http_dock_call user=Front Desk'],
      actual: [
        'wf_http_page_security user=Front Desk environment=pro',
        'wf_http_page_security user=Front Desk environment=pro',
      ],
      firstDifference: 0,
    });
    expect(wrong.failures[1]!.message).toBe(
      'the scenario went to oauth2/token 2 times, expected 1',
    );
  });

  test('a trigger step of an account without a refresh token says what to add', async () => {
    const withoutTokens = defineScenario({
      name: 'No refresh token',
      proves: 'The runner names what is missing.',
      fixtures: {
        accounts: [
          {
            subscriber_id: '700001',
            api_keys: ['key-of-700001'],
            groups: [],
            devices: [{ id: '700000000000001', user: 'Solo', key: 'badge-key-solo' }],
          },
        ],
      },
      badges: 'none',
      timeline: [{ at: '0s', device_info: 'Solo' }],
      expect: {},
    });
    await expect(runScenario(withoutTokens)).rejects.toThrow(
      /account 700001 has no refresh token for pro: add one under refresh_tokens/,
    );
  });

  test('external mode drives a stub in another process through its control clock', async () => {
    await using stub = await startStubProcess(['--clock', 'virtual']);
    const report = await runScenario(loadScenarioFile(file('external.scenario.yaml', GOOD)), {
      mode: 'external',
      stubUrl: stub.url,
    });
    expect(report.failures).toEqual([]);
    expect(report.rerun).toContain(`--stub ${stub.url}`);
    const trigger = await runScenario(
      loadScenarioFile('scenarios/catalogue/token-refreshed-after-two-hours.scenario.yaml'),
      { mode: 'external', stubUrl: stub.url },
    );
    expect(trigger.failures).toEqual([]);
    expect(trigger.actual.token_requests).toBe(2);
  });
});

describe('a badge that vanishes (the vanish behaviour, a seeded range)', () => {
  const VANISH = `name: Vanishes by behaviour
proves: A badge whose network vanishes without a close and comes back on a new socket acknowledges.
badges: { group: Pharmacy }
behaviours:
  Omar Haddad: { vanish: [{ at: 35s..45s, for: 50s..70s }], ack: { on_repeat: 4 } }
timeline:
  - at: 0s
    alert: { notification: Delivery at dock, groups: [Pharmacy] }
    as: delivery
  - { at: 5s, tap: Lena Ortiz }
duration: 300s
expect:
  tasks:
    delivery: { state: ended, outcome: quorum, acknowledgements: 2 }
`;

  test('passes in process and against a stub in another process, with the same seed the same story', async () => {
    const path = file('vanish.scenario.yaml', VANISH);
    const inProcess = await runScenario(loadScenarioFile(path), { seed: 7 });
    expect(inProcess.failures).toEqual([]);
    const again = await runScenario(loadScenarioFile(path), { seed: 7 });
    expect(again.actual.events).toEqual(inProcess.actual.events);
    await using stub = await startStubProcess(['--clock', 'virtual']);
    const external = await runScenario(loadScenarioFile(path), {
      mode: 'external',
      stubUrl: stub.url,
      seed: 7,
    });
    expect(external.failures).toEqual([]);
  });
});

describe('badge-sim run', () => {
  test('exit 0 when all pass, 1 when one fails; --grep, --bail, JUnit and JSON reports', () => {
    const good = file('cli-good.scenario.yaml', GOOD);
    const bad = file(
      'cli-bad.scenario.yaml',
      GOOD.replace('name: Quorum of one', 'name: Wrong on purpose').replace(
        'at: 5s }\n      - { type: end',
        'at: 9s }\n      - { type: end',
      ),
    );
    const pass = runCli(['run', good]);
    expect(pass.status).toBe(0);
    expect(pass.stdout).toContain('✓ Quorum of one');
    const fail = runCli(['run', good, bad]);
    expect(fail.status).toBe(1);
    expect(fail.stdout).toContain('✗ Wrong on purpose');
    expect(fail.stdout).toContain('1 of 2 scenarios failed');
    expect(runCli(['run', good, bad, '--grep', 'quorum of']).status).toBe(0);
    const bail = runCli(['run', bad, good, '--bail']);
    expect(bail.stdout).not.toContain('Quorum of one');
    const junit = join(dir, 'junit.xml');
    expect(runCli(['run', good, bad, '--reporter', 'junit', '--output', junit]).status).toBe(1);
    const xml = readFileSync(junit, 'utf8');
    expect(xml).toContain(
      '<testsuite name="badge-sim scenarios" tests="2" failures="1" errors="0">',
    );
    expect(xml).toContain('<failure message=');
    expect(xml).not.toContain('\x1b[');
    const json = runCli(['run', good, '--reporter', 'json']);
    expect(JSON.parse(json.stdout)).toMatchObject({ passed: 1, failed: 0 });
  });

  test('a file that does not load fails the run and says why; no files is an error', () => {
    const broken = file('broken.scenario.yaml', 'name: x\n');
    const run = runCli(['run', broken]);
    expect(run.status).toBe(1);
    expect(run.stdout).toContain('proves is required');
    const none = runCli(['run', join(dir, 'nothing-here')]);
    expect(none.status).toBe(2);
    expect(none.stderr).toContain('no file or folder');
  });

  test('a YAML alias bomb is that file’s ✗ with the reason; the other scenarios still run', () => {
    const good = file('bomb-neighbour.scenario.yaml', GOOD);
    const bomb = file('bomb.scenario.yaml', ALIAS_BOMB);
    const run = runCli(['run', good, bomb]);
    expect(run.status).toBe(1);
    expect(run.stdout).toContain('✓ Quorum of one');
    expect(run.stdout).toContain(`✗ ${bomb}`);
    expect(run.stdout).toContain(
      `badge-sim: ${bomb}: cannot read this document: Excessive alias count`,
    );
    expect(run.stderr).not.toContain('ReferenceError');
    expect(() => loadScenarioFile(bomb)).toThrow(ScenarioError);
  });
});
