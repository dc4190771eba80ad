/**
 * Every kind of mistake in a scenario, and in the options that name things, says where
 * (file:line:column), the innermost wrong thing, the nearest valid word when one is close and
 * the valid ones when they are few (issue 31 point 1). Each test asserts the whole message.
 */
import { describe, expect, test } from 'vitest';
import { choiceOption } from '../../cli/cli-errors.ts';
import { loadScenarioFile, ScenarioError } from '../../scenarios/format/load-scenario.ts';
import { runScenario } from '../../scenarios/runner/run-scenario.ts';
import { startStub } from '../../server-stub/start-stub.ts';
import { startFleet } from '../../simulator/fleet.ts';
import { QUORUM_OF_ONE, scenarioFile } from '../support/scenario-files.ts';

const GOOD = QUORUM_OF_ONE;

let files = 0;
function write(text: string): string {
  files += 1;
  return scenarioFile(`mistake-${files}.scenario.yaml`, text);
}

/** The loader's error for a scenario text, with the file's path written as FILE. */
function refusal(text: string): string {
  const path = write(text);
  try {
    loadScenarioFile(path);
  } catch (error) {
    expect(error).toBeInstanceOf(ScenarioError);
    return (error as Error).message.replaceAll(path, 'FILE');
  }
  throw new Error('the scenario was accepted');
}

/** The runner's error for a scenario that loads but names what its fixtures lack. */
async function runRefusal(text: string): Promise<string> {
  const path = write(text);
  const loaded = loadScenarioFile(path);
  const error = await runScenario(loaded).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ScenarioError);
  return (error as Error).message.replaceAll(path, 'FILE');
}

describe('a mistake in a scenario file names the place, the wrong thing and the fix', () => {
  test('the test scenario is good as written', () => {
    expect(loadScenarioFile(write(GOOD)).scenario.name).toBe('Quorum of one');
  });

  test('a misspelt field: the nearest field', () => {
    expect(refusal(GOOD.replace('duration: 1m', 'duraton: 1m'))).toBe(
      'badge-sim: FILE:10:1: duraton is not a field here: did you mean duration?',
    );
  });

  test('a misspelt field that is required: the slip, not the missing field', () => {
    expect(refusal(GOOD.replace('proves:', 'prove:'))).toBe(
      'badge-sim: FILE:2:1: prove is not a field here: did you mean proves?',
    );
  });

  test('a misspelt field beside a missing required one: the slip first, then the missing one', () => {
    const text = GOOD.replace(/^proves:.*\n/m, '').replace('duration: 1m', 'duraton: 1m');
    expect(refusal(text)).toBe(
      'badge-sim: FILE:9:1: duraton is not a field here: did you mean duration? Also: proves is required.',
    );
  });

  test('an unknown field beside a missing required one: both, the unknown field first', () => {
    const text = GOOD.replace(/^proves:.*\n/m, '').replace('duration: 1m', 'zzz: 1m');
    expect(refusal(text)).toBe(
      'badge-sim: FILE:9:1: zzz is not a field here. Also: proves is required.',
    );
  });

  test('a misspelt field inside an events item: the item, not "must be array" at the top', () => {
    expect(
      refusal(GOOD.replace('type: acknowledged, device: Ben', 'type: acknowledged, devce: Ben')),
    ).toBe(
      'badge-sim: FILE:16:31: expect.events.items[1].devce is not a field here: did you mean device? (fields here: type, device, status, task, name, at, within)',
    );
  });

  test('a misspelt field in a list of events written without only/order', () => {
    const text = GOOD.replace(/ {2}events:\n {4}only: true\n {4}items:\n/, '  events:\n').replace(
      'type: acknowledged, device: Ben',
      'type: acknowledged, devce: Ben',
    );
    expect(refusal(text)).toBe(
      'badge-sim: FILE:14:31: expect.events[1].devce is not a field here: did you mean device? (fields here: type, device, status, task, name, at, within)',
    );
  });

  test('a misspelt step kind: the nearest kind, at the key', () => {
    expect(refusal(GOOD.replace('    alert: {', '    alrt: {'))).toBe(
      'badge-sim: FILE:8:5: timeline[0].alrt is no step kind or field of a step: did you mean alert?',
    );
  });

  test('a step with no action and nothing near one: the actions there are', () => {
    expect(refusal(GOOD.replace('    alert: {', '    zzzzzzzz: {'))).toBe(
      'badge-sim: FILE:7:5: timeline[0] needs one action: alert, broadcast, cancel, events, request, workflow, device_info, expire_tokens, tap, offline, vanish, online, drop, battery, move, jump, fault, clear_fault, snapshot (it has: at, zzzzzzzz, as)',
    );
  });

  test('a misspelt field of a step: the nearest field', () => {
    const text = GOOD.replace(
      '    as: runner\n',
      '    as: runner\n  - { at: 1s, tap: Ada Mensah, delya: 1s }\n',
    );
    expect(refusal(text)).toBe(
      'badge-sim: FILE:10:32: timeline[1].delya is not a field here: did you mean delay? (fields here: at, as, expect, repeat, note, tap, lost, delay, duplicate, gap)',
    );
  });

  test('a misspelt behaviour: the behaviours there are', () => {
    expect(refusal(GOOD.replace('{ ack: { after', '{ akc: { after'))).toBe(
      'badge-sim: FILE:5:17: behaviours.Ben Okafor.akc is not a field here: did you mean ack? (fields here: ack, offline, vanish, flaky, acknowledges, tap, drop, battery)',
    );
  });

  test('a misspelt word of a choice: the words, and the nearest', () => {
    expect(refusal(GOOD.replace('type: acknowledged,', 'type: acknowleged,'))).toBe(
      'badge-sim: FILE:16:11: expect.events.items[1].type must be one of: start, acknowledged, timed_out, end; did you mean acknowledged?',
    );
  });

  test('a misspelt step name in expect.tasks and in an events item: the names given', () => {
    expect(refusal(GOOD.replace('runner: { outcome', 'runnr: { outcome'))).toBe(
      "badge-sim: FILE:21:5: expect.tasks.runnr: no step is named 'runnr' (as: runnr): did you mean 'runner'? (steps named: runner)",
    );
    expect(refusal(GOOD.replace('task: runner', 'task: runer'))).toBe(
      "badge-sim: FILE:15:24: expect.events.items[0].task: no step is named 'runer': did you mean 'runner'? (steps named: runner)",
    );
  });

  test('a misspelt step name in clear_fault', () => {
    const text = GOOD.replace(
      '    as: runner\n',
      '    as: runner\n  - { at: 1s, fault: { match: { path: /a }, action: { status: 503 } }, as: outage }\n  - { at: 2s, clear_fault: outgae }\n',
    );
    expect(refusal(text)).toBe(
      "badge-sim: FILE:11:15: timeline[2].clear_fault: no earlier step is named 'outgae' (write all for every fault): did you mean 'outage'? (steps named so far: runner, outage)",
    );
  });

  test('a misspelt field in inline fixtures: the nearest field', () => {
    const text = GOOD.replace(
      'badges: { group: Nurses }',
      'fixtures:\n  accounts:\n    - subscriber_id: "1"\n      api_keys: [key-of-account-1]\n      groups: [{ id: "1", nmae: Nurses, members: [] }]\n      devices: []\nbadges: { group: Nurses }',
    );
    expect(refusal(text)).toBe(
      'badge-sim: FILE:7:27: fixtures.accounts[0].groups[0].nmae is not a field here: did you mean name? (fields here: id, name, members)',
    );
  });

  test('a group the account lacks: the nearest group and the groups there are', async () => {
    expect(await runRefusal(GOOD.replace('group: Nurses }', 'group: Nurse }'))).toBe(
      "badge-sim: FILE:3:11: badges.group: no group 'Nurse' in account 100001: did you mean 'Nurses'? (groups: Nurses, Pharmacy, Security)",
    );
  });

  test('a user or device the account lacks, in a behaviour, a step and an expectation', async () => {
    const users =
      '(users: Ada Mensah, Ben Okafor, Lena Ortiz, Omar Haddad, Rosa Lindqvist, Front Desk)';
    expect(await runRefusal(GOOD.replace('  Ben Okafor: { ack', '  Ben Okafr: { ack'))).toBe(
      `badge-sim: FILE:5:3: behaviours.Ben Okafr: no device 'Ben Okafr' in account 100001: did you mean 'Ben Okafor'? ${users}`,
    );
    const tap = GOOD.replace(
      '    as: runner\n',
      '    as: runner\n  - { at: 1s, tap: Ada Mensha }\n',
    );
    expect(await runRefusal(tap)).toBe(
      `badge-sim: FILE:10:15: timeline[1].tap: no device 'Ada Mensha' in account 100001: did you mean 'Ada Mensah'? ${users}`,
    );
    expect(await runRefusal(`${GOOD}  states:\n    Lena Orti: idle\n`)).toBe(
      `badge-sim: FILE:23:5: expect.states.Lena Orti: no device 'Lena Orti' in account 100001: did you mean 'Lena Ortiz'? ${users}`,
    );
  });

  test('a name far from every valid one lists them without guessing', async () => {
    expect(await runRefusal(GOOD.replace('group: Nurses }', 'group: Astronauts }'))).toBe(
      "badge-sim: FILE:3:11: badges.group: no group 'Astronauts' in account 100001 (groups: Nurses, Pharmacy, Security)",
    );
  });
});

describe("words that name what every object has get a plain 'not a field' answer, never a crash", () => {
  test.each([
    ['valueOf', 'badge-sim: FILE:11:1: valueOf is not a field here'],
    ['constructor', 'badge-sim: FILE:11:1: constructor is not a field here'],
    ['__proto__', 'badge-sim: FILE:11:1: __proto__ is not a field here'],
  ])('%s as a field of the scenario', (word, message) => {
    expect(refusal(GOOD.replace('expect:\n', `${word}: 1\nexpect:\n`))).toBe(message);
  });

  test.each(['valueOf', 'constructor', '__proto__', 'toString'])(
    '%s as a step kind, a behaviour and an events field',
    (word) => {
      expect(refusal(GOOD.replace('    alert: {', `    ${word}: {`))).toMatch(
        /^badge-sim: FILE:7:5: timeline\[0\] needs one action: /,
      );
      expect(refusal(GOOD.replace('{ ack: { after', `{ ${word}: { after`))).toMatch(
        new RegExp(`^badge-sim: FILE:5:17: behaviours\\.Ben Okafor\\.${word} is not a field here`),
      );
      expect(
        refusal(GOOD.replace('{ type: start, task', `{ type: start, ${word}: x, task`)),
      ).toMatch(
        new RegExp(
          `^badge-sim: FILE:15:24: expect\\.events\\.items\\[0\\]\\.${word} is not a field here`,
        ),
      );
    },
  );

  test.each(['valueOf', 'constructor', '__proto__'])(
    '%s as a group, a device and a task name',
    async (word) => {
      expect(await runRefusal(GOOD.replace('group: Nurses }', `group: ${word} }`))).toMatch(
        `badges.group: no group '${word}' in account 100001`,
      );
      expect(await runRefusal(GOOD.replace('  Ben Okafor: { ack', `  ${word}: { ack`))).toMatch(
        `no device '${word}' in account 100001`,
      );
      expect(refusal(GOOD.replace('runner: { outcome', `${word}: { outcome`))).toMatch(
        `expect.tasks.${word}: no step is named '${word}'`,
      );
    },
  );
});

describe('options that name things', () => {
  test('a misspelt reporter: the reporters and the nearest', () => {
    const reporter = choiceOption('--reporter', ['console', 'junit', 'json', 'html'] as const);
    expect(() => reporter('htm')).toThrow(
      '--reporter must be one of: console, junit, json, html; did you mean html?',
    );
    expect(() => reporter('pdf')).toThrow('--reporter must be one of: console, junit, json, html.');
    expect(reporter('html')).toBe('html');
  });

  test('a misspelt group of a fleet: the nearest group and the groups there are', async () => {
    await using stub = await startStub({ port: 0 });
    await expect(startFleet({ stub, group: 'Nurse' })).rejects.toThrow(
      "badge-sim: no group 'Nurse' with devices on the stub: did you mean 'Nurses'? (groups: Nurses, Pharmacy, Security",
    );
  });
});
