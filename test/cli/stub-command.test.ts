/** `badge-sim stub` as a user runs it: a real process, a real port, a clean stop. */
import { once } from 'node:events';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import WebSocket from 'ws';
import { stubCommand } from '../../cli/stub.command.ts';
import { recordingSaid } from '../../cli/stub-banner.ts';
import { DEFAULT_FIXTURES_FILE } from '../../fixtures/load-fixtures.ts';
import { runCli as run, runCliAsync, startCli as start } from '../support/cli.ts';
import { refusalInProcess } from '../support/command-in-process.ts';
import { RIVERSIDE, request } from '../support/http.ts';

/** Starts `badge-sim stub` and waits for its ready banner. */
async function startCli(args: string[]) {
  const cli = await start(['stub', ...args], 'Press Ctrl+C to stop.');
  const url = /control API\s+(http:\/\/\S+)\/_stub/.exec(cli.output())![1]!;
  return Object.assign(cli, { url });
}

const runCli = run;

/** `badge-sim stub …`'s refusal, parsed in this process (a real process keeps one case each). */
const refusal = (args: string[], env: Record<string, string> = {}) =>
  refusalInProcess(stubCommand(), args, env);

describe('badge-sim stub', () => {
  test('prints its URLs, serves the API, logs requests without secrets, stops on SIGTERM', async () => {
    await using cli = await startCli(['--port', '0', '--clock', 'virtual']);
    const { child, url, output } = cli;
    expect(output()).toMatch(
      /service API\s+http:\/\/127\.0\.0\.1:\d+\/subscribers\/\{id\}\/api\/v1/,
    );
    expect(output()).toContain('/_stub/openapi.json');
    expect(output()).toContain('control API open (no --control-token)');
    const res = await request(`${url}/subscribers/100001/api/v1/events`, {
      headers: { authorization: `ServiceApiKey ${RIVERSIDE.key}` },
    });
    expect(res.status).toBe(200);
    await expect.poll(output).toContain('GET /subscribers/100001/api/v1/events 200');
    child.kill('SIGTERM');
    const [code] = await once(child, 'exit');
    expect(code).toBe(0);
    expect(output()).toContain('SIGTERM: stopping the stub');
    expect(output()).not.toContain(RIVERSIDE.key);
  });

  test('takes its options from BADGE_SIM_* variables (how the container is configured); a flag wins', async () => {
    await using cli = await start(['stub', '--brand-word', 'flagword'], 'Press Ctrl+C to stop.', {
      BADGE_SIM_PORT: '0',
      BADGE_SIM_CLOCK: 'virtual',
      BADGE_SIM_SEED: '9',
      BADGE_SIM_AUTH_SCHEME: 'Token',
      BADGE_SIM_BRAND_WORD: 'envword',
      BADGE_SIM_QUIET: '1',
      BADGE_SIM_BADGE_ANSWER_TIMEOUT: '500ms',
      BADGE_SIM_JOURNAL_LIMIT: '50',
    });
    const url = /control API\s+(http:\/\/\S+)\/_stub/.exec(cli.output())![1]!;
    expect(cli.output()).toContain('clock        virtual');
    const settings = await request(`${url}/_stub/settings`);
    expect(settings.body).toMatchObject({
      authScheme: 'Token',
      brandWord: 'flagword',
      badgeAnswerTimeoutMs: 500,
      journalLimit: 50,
    });
    await request(`${url}/_stub/health`);
    expect(cli.output()).not.toContain('GET /_stub/health');
  });

  test('client ids come from flags and BADGE_SIM_* variables over the fixtures’ client_ids (a flag wins over its variable); the banner, badge-sim env and /_stub/settings show the ids in effect', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'badge-sim-client-ids-'));
    const file = join(dir, 'team.fixtures.yaml');
    const fixtures = readFileSync(DEFAULT_FIXTURES_FILE, 'utf8');
    writeFileSync(
      file,
      `client_ids:\n  pro: { cli: team-pro-cli, sdk: team-pro-sdk }\n  qa: { sdk: team-qa-sdk }\n${fixtures}`,
    );
    await using cli = await start(
      ['stub', '--fixtures', file, '--pro-sdk-client-id', 'flag-pro-sdk'],
      'Press Ctrl+C to stop.',
      {
        BADGE_SIM_PORT: '0',
        BADGE_SIM_QUIET: '1',
        BADGE_SIM_PRO_SDK_CLIENT_ID: 'env-pro-sdk',
        BADGE_SIM_QA_CLI_CLIENT_ID: 'env-qa-cli',
        BADGE_SIM_UNKNOWN_CLIENT_IDS: 'accept',
      },
    );
    const url = /control API\s+(http:\/\/\S+)\/_stub/.exec(cli.output())![1]!;
    expect(cli.output()).toContain(
      'client ids   pro team-pro-cli (cli), flag-pro-sdk (sdk) · qa env-qa-cli (cli), team-qa-sdk (sdk); unknown ones accepted',
    );
    const listing = JSON.parse(runCli(['env', '--stub', url, '--json']).stdout);
    expect(
      listing.map((row: Record<string, string>) => [row.cli_client_id, row.sdk_client_id]),
    ).toEqual([
      ['team-pro-cli', 'flag-pro-sdk'],
      ['env-qa-cli', 'team-qa-sdk'],
    ]);
    expect((await request(`${url}/_stub/settings`)).body).toMatchObject({
      unknownClientIds: 'accept',
      environments: { pro: { sdkClientId: 'flag-pro-sdk' }, qa: { cliClientId: 'env-qa-cli' } },
    });
    const exchange = (clientId: string) =>
      request(`${url}/oauth2/token`, {
        method: 'POST',
        body: {
          grant_type: 'refresh_token',
          client_id: clientId,
          refresh_token: 'demo-refresh-token-riverside-pro-0001',
        },
      });
    expect((await exchange('flag-pro-sdk')).status).toBe(200);
    expect((await exchange('an-id-no-environment-knows')).status).toBe(200);
    expect((await exchange('team-qa-sdk')).body.error).toBe('invalid_client');
  });

  test('--urn-word (BADGE_SIM_URN_WORD) sets the word of group URNs apart from --brand-word; without it the brand word is used', async () => {
    await using apart = await startCli([
      '--port',
      '0',
      '--quiet',
      '--brand-word',
      'acmepro',
      '--urn-word',
      'acme',
    ]);
    await using fromVariable = await start(
      ['stub', '--port', '0', '--quiet'],
      'Press Ctrl+C to stop.',
      {
        BADGE_SIM_BRAND_WORD: 'acmepro',
        BADGE_SIM_URN_WORD: 'acme',
      },
    );
    await using together = await startCli(['--port', '0', '--quiet', '--brand-word', 'acmepro']);
    const alert = (base: string, urnWord: string) =>
      request(`${base}/subscribers/100001/api/v1/alerts`, {
        method: 'POST',
        headers: { authorization: `ServiceApiKey ${RIVERSIDE.key}` },
        body: { notification: 'x', groups: [`urn:${urnWord}-resource:name:group:Nurses`] },
      });
    const urlOf = (output: string) => /control API\s+(http:\/\/\S+)\/_stub/.exec(output)![1]!;
    for (const cli of [apart, fromVariable]) {
      const url = urlOf(cli.output());
      expect((await alert(url, 'acme')).status).toBe(200);
      expect((await alert(url, 'acmepro')).status).toBe(400);
      expect((await request(`${url}/_stub/settings`)).body).toMatchObject({
        brandWord: 'acmepro',
        urnWord: 'acme',
      });
    }
    expect((await alert(together.url, 'acmepro')).status).toBe(200);
    expect((await alert(together.url, 'acme')).status).toBe(400);
  });

  test('a client id in the fixtures that cannot be one is refused naming the file, the line and the field', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'badge-sim-client-ids-'));
    const file = join(dir, 'bad.fixtures.yaml');
    writeFileSync(
      file,
      `client_ids:\n  pro:\n    sdk: "two words"\n${readFileSync(DEFAULT_FIXTURES_FILE, 'utf8')}`,
    );
    const result = await refusal(['--port', '0', '--fixtures', file]);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain(`${file}:3: client_ids.pro.sdk`);
  });

  test.each([
    [
      { BADGE_SIM_CLOCK: 'sometimes' },
      "from env 'BADGE_SIM_CLOCK' is invalid. --clock must be one of: virtual, real, scaled.",
    ],
    [
      { BADGE_SIM_AUTH_SCHEME: '' },
      "from env 'BADGE_SIM_AUTH_SCHEME' is invalid. --auth-scheme must be one word such as ServiceApiKey.",
    ],
    [{ BADGE_SIM_BRAND_WORD: 'a/b' }, '--brand-word must be one word such as service.'],
    [{ BADGE_SIM_URN_WORD: 'a:b' }, '--urn-word must be one word such as service.'],
    [
      { BADGE_SIM_PRO_SDK_CLIENT_ID: 'two words' },
      '--pro-sdk-client-id (BADGE_SIM_PRO_SDK_CLIENT_ID) must be 1 to 128 visible ASCII characters, no spaces.',
    ],
    [
      { BADGE_SIM_QA_CLI_CLIENT_ID: '' },
      '--qa-cli-client-id (BADGE_SIM_QA_CLI_CLIENT_ID) must be 1 to 128 visible ASCII characters',
    ],
    [
      { BADGE_SIM_UNKNOWN_CLIENT_IDS: 'maybe' },
      '--unknown-client-ids must be one of: refuse, accept.',
    ],
    [{ BADGE_SIM_QUIET: 'maybe' }, "BADGE_SIM_QUIET must be true or false (it is 'maybe')."],
    [{ BADGE_SIM_CONTROL_TOKEN: '' }, '--control-token (BADGE_SIM_CONTROL_TOKEN) is empty.'],
    [
      { BADGE_SIM_CONTROL_TOKEN: 'two words' },
      '--control-token (BADGE_SIM_CONTROL_TOKEN) must be 1 to 1024 visible ASCII characters',
    ],
    [
      { BADGE_SIM_SCALE: '60' },
      '--scale (BADGE_SIM_SCALE) is for --clock scaled, and the clock is real (BADGE_SIM_CLOCK).',
    ],
    [
      { BADGE_SIM_CLOCK: 'scaled' },
      '--clock scaled (BADGE_SIM_CLOCK) needs --scale <factor> (BADGE_SIM_SCALE)',
    ],
    [
      { BADGE_SIM_GENERATE: '5', BADGE_SIM_FIXTURES: 'fixtures/default.fixtures.yaml' },
      'give either --fixtures (BADGE_SIM_FIXTURES) or --generate (BADGE_SIM_GENERATE), not both.',
    ],
  ])(
    'a bad setting from the environment is refused naming the variable: %j',
    async (env, message) => {
      const result = await refusal(['--port', '0'], env);
      expect(result.status).toBe(2);
      expect(result.stderr).toContain(message);
    },
  );

  test('a bad setting from the environment is refused by the command itself: exit 2, nothing started', async () => {
    const [clock, token] = await Promise.all([
      runCliAsync(['stub', '--port', '0'], { BADGE_SIM_CLOCK: 'sometimes' }),
      runCliAsync(['stub', '--port', '0'], { BADGE_SIM_CONTROL_TOKEN: 'two words' }),
    ]);
    expect(clock.status).toBe(2);
    expect(clock.stderr).toContain(
      "from env 'BADGE_SIM_CLOCK' is invalid. --clock must be one of: virtual, real, scaled.",
    );
    expect(token.status).toBe(2);
    expect(token.stderr).toContain(
      '--control-token (BADGE_SIM_CONTROL_TOKEN) must be 1 to 1024 visible ASCII characters',
    );
    for (const run of [clock, token]) expect(run.stdout).not.toContain('ready');
  });

  test('BADGE_SIM_QUIET=false keeps the request log', async () => {
    await using cli = await start(['stub', '--port', '0'], 'Press Ctrl+C to stop.', {
      BADGE_SIM_QUIET: 'false',
    });
    const url = /control API\s+(http:\/\/\S+)\/_stub/.exec(cli.output())![1]!;
    await request(`${url}/_stub/health`);
    await expect.poll(cli.output).toContain('GET /_stub/health 200');
  });

  test('without --seed two processes issue different first task ids (the banner says ids are random) on the same fixtures; with --seed the same ids', async () => {
    const firstTaskId = async (args: string[]) => {
      await using cli = await startCli(['--port', '0', '--quiet', '--generate', '3', ...args]);
      const fixtures = (await request(`${cli.url}/_stub/fixtures`)).body;
      const account = fixtures.accounts[0];
      const res = await request(`${cli.url}/subscribers/${account.subscriber_id}/api/v1/alerts`, {
        method: 'POST',
        headers: { authorization: `ServiceApiKey ${account.api_keys[0]}` },
        body: { notification: 'x', groups: [account.groups[0].name] },
      });
      expect(res.status).toBe(200);
      return { taskId: res.body.task_id as string, banner: cli.output(), fixtures };
    };
    const [one, two, seeded, seededAgain] = await Promise.all([
      firstTaskId([]),
      firstTaskId([]),
      firstTaskId(['--seed', '3']),
      firstTaskId(['--seed', '3']),
    ]);
    expect(two.taskId).not.toBe(one.taskId);
    expect(one.banner).toContain('ids          random: new on every start and reset (no --seed)');
    // Generated fixtures without --seed are those of seed 0, start after start: keys stay put.
    expect(two.fixtures).toEqual(one.fixtures);
    expect(one.banner).toContain('generated from seed 0');
    expect(seededAgain.taskId).toBe(seeded.taskId);
    expect(seeded.banner).toContain('ids          from seed 3: the same on every run');
  });

  test('--control-token (or BADGE_SIM_CONTROL_TOKEN) locks the control API; the banner says so and never shows the token', async () => {
    const token = 'cli-test-control-token-7f3a';
    await using flag = await startCli(['--port', '0', '--control-token', token]);
    await using fromVariable = await start(['stub', '--port', '0'], 'Press Ctrl+C to stop.', {
      BADGE_SIM_CONTROL_TOKEN: token,
    });
    for (const cli of [flag, fromVariable]) {
      const url = /control API\s+(http:\/\/\S+)\/_stub/.exec(cli.output())![1]!;
      expect(cli.output()).toContain(
        'control API locked (send header X-Badge-Sim-Control-Token: <the --control-token>)',
      );
      expect((await request(`${url}/_stub/fixtures`)).status).toBe(401);
      const allowed = await request(`${url}/_stub/fixtures`, {
        headers: { 'x-badge-sim-control-token': token },
      });
      expect(allowed.status).toBe(200);
      expect((await request(`${url}/_stub/health`)).status).toBe(200);
      await expect.poll(cli.output).toContain('GET /_stub/fixtures 200');
      expect(cli.output()).toContain('GET /_stub/fixtures 401');
      expect(cli.output() + cli.errors()).not.toContain(token);
    }
  });

  test('stops on SIGINT too', async () => {
    await using cli = await startCli(['--port', '0', '--quiet']);
    const { child } = cli;
    child.kill('SIGINT');
    const [code] = await once(child, 'exit');
    expect(code).toBe(0);
  });

  test('with --record, stopping says where the recording went, how many records it holds and how to make a scenario of it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'badge-sim-record-stop-'));
    const file = join(dir, 'session.jsonl');
    await using cli = await startCli(['--port', '0', '--quiet', '--record', file]);
    const res = await request(`${cli.url}/subscribers/100001/api/v1/events`, {
      headers: { authorization: `ServiceApiKey ${RIVERSIDE.key}` },
    });
    expect(res.status).toBe(200);
    cli.child.kill('SIGTERM');
    const [code] = await once(cli.child, 'exit');
    expect(code).toBe(0);
    const lines = readFileSync(file, 'utf8').trim().split('\n');
    // session, the request, the end: what the stub says is what the file holds.
    expect(lines.length).toBeGreaterThanOrEqual(3);
    expect(JSON.parse(lines.at(-1)!)).toMatchObject({ kind: 'end', dropped: 0 });
    expect(cli.output()).toContain(
      `recording: ${lines.length} records in ${file}; make a regression test of it: badge-sim record ${file} --to ${join(dir, 'session.scenario.yaml')}`,
    );
    expect(cli.output()).not.toContain('dropped past');
  });

  test('the stop line says a recording file that stopped early, and records dropped past the limit', () => {
    expect(
      recordingSaid('s.jsonl', { written: 1, failed: 'ENOSPC' }, { dropped: 0, limit: 10 }),
    ).toBe('recording: s.jsonl holds the first 1 record only: writing it failed (ENOSPC).');
    expect(
      recordingSaid('a/s.log', { written: 4, failed: undefined }, { dropped: 2, limit: 3 }),
    ).toBe(
      'recording: 4 records in a/s.log; make a regression test of it: badge-sim record a/s.log --to a/s.scenario.yaml\n' +
        'recording: 2 records dropped past --record-limit 3 (the file ends with what came before)',
    );
  });

  test('--help describes every option', async () => {
    const [help, top] = await Promise.all([
      runCliAsync(['stub', '--help']),
      runCliAsync(['--help']),
    ]);
    expect(help.status).toBe(0);
    for (const option of [
      '--port',
      '--fixtures',
      '--seed',
      '--clock',
      '--scale',
      '--generate',
      '--auth-scheme',
      '--brand-word',
      '--urn-word',
      '--pro-cli-client-id',
      '--pro-sdk-client-id',
      '--qa-cli-client-id',
      '--qa-sdk-client-id',
      '--unknown-client-ids',
      '--badge-answer-timeout',
      '--journal-limit',
      '--control-token',
      'X-Badge-Sim-Control-Token',
    ]) {
      expect(help.stdout).toContain(option);
    }
    expect(top.stdout).toContain('stub');
  });

  test('bad options say what to fix', async () => {
    // (the real process's refusal of --port eighty: test/cli/exit-codes.test.ts)
    const port = await refusal(['--port', 'eighty']);
    expect(port.status).toBe(2);
    expect(port.stderr).toContain('--port must be a whole number from 0 to 65535');
    const journal = await refusal(['--journal-limit', '0']);
    expect(journal.status).toBe(2);
    expect(journal.stderr).toContain('--journal-limit must be a whole number from 1 to 100000');
    const scaled = await refusal(['--clock', 'scaled']);
    expect(scaled.status).toBe(2);
    expect(scaled.stderr).toContain('--clock scaled (BADGE_SIM_CLOCK) needs --scale');
    const missing = await refusal(['--port', '0', '--fixtures', '/nonexistent/fixtures.yaml']);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toContain('cannot read fixtures file /nonexistent/fixtures.yaml');
  });

  test('says which badge the clock went on without (--badge-answer-timeout)', async () => {
    await using cli = await startCli([
      '--port',
      '0',
      '--clock',
      'virtual',
      '--quiet',
      '--badge-answer-timeout',
      '200ms',
    ]);
    const ws = new WebSocket(`${cli.url.replace(/^http/, 'ws')}/_stub/devices/connect`);
    await once(ws, 'open');
    // Says hello, then answers nothing.
    ws.send(
      JSON.stringify({
        type: 'hello',
        seq: 0,
        protocol: 1,
        device_id: '350000000000001',
        key: 'badge-key-0001',
      }),
    );
    await once(ws, 'message');
    const advanced = await request(`${cli.url}/_stub/clock/advance`, {
      method: 'POST',
      body: { by: '1s' },
    });
    expect(advanced.body.held_by).toHaveLength(1);
    await expect
      .poll(cli.output)
      .toContain(
        'badge 350000000000001 (Ada Mensah) did not answer within 200 ms: the clock went on without it',
      );
    ws.close();
  });

  test('a port in use is reported plainly', async () => {
    await using cli = await startCli(['--port', '0', '--quiet']);
    const { url } = cli;
    const port = new URL(url).port;
    const second = runCli(['stub', '--port', port]);
    expect(second.status).toBe(2);
    expect(second.stderr).toContain(`port ${port} is in use`);
    expect(second.stderr.trim()).toBe(
      `badge-sim: cannot listen on 127.0.0.1:${port}: port ${port} is in use (pick another with --port, or --port 0 for any free port)`,
    );
  });

  test('a fixtures file with an empty group is refused naming the file, the line and the group, exit 2', () => {
    const dir = mkdtempSync(join(tmpdir(), 'badge-sim-empty-group-'));
    const file = join(dir, 'team.fixtures.yaml');
    writeFileSync(
      file,
      [
        'accounts:',
        '  - subscriber_id: "42"',
        '    api_keys: [key-of-account-42]',
        '    groups:',
        '      - { id: "1", name: Porters, members: ["7001"] }',
        '      - id: "2"',
        '        name: Night Shift',
        '        members: []',
        '    devices:',
        '      - { id: "7001", user: Pat Porter }',
        '',
      ].join('\n'),
    );
    const result = runCli(['stub', '--port', '0', '--fixtures', file]);
    expect(result.status).toBe(2);
    expect(result.stderr.trim()).toBe(
      `badge-sim: ${file}:8: accounts[0].groups[1].members: group 'Night Shift' has no members: a group is a set of one or more users, so list at least one device of account 42 (or leave the group out)`,
    );
  });

  test('a fixtures file that is a YAML alias bomb is one line naming the file, exit 2', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'badge-sim-bomb-'));
    const bomb = join(dir, 'bomb.yaml');
    writeFileSync(
      bomb,
      [
        'a0: &a0 [x, x, x, x, x, x, x, x, x, x]',
        ...Array.from(
          { length: 8 },
          (_, i) => `a${i + 1}: &a${i + 1} [${Array(10).fill(`*a${i}`).join(', ')}]`,
        ),
      ].join('\n'),
    );
    const result = await refusal(['--port', '0', '--fixtures', bomb]);
    expect(result.status).toBe(2);
    expect(result.stderr.trim()).toBe(
      `badge-sim: ${bomb}: cannot read this document: Excessive alias count indicates a resource exhaustion attack`,
    );
  });

  test('a host that cannot be resolved or bound is one line and exit 2, no stack trace', async () => {
    const hosts = [
      ['__proto__', 'the host name does not resolve'],
      ['203.0.113.1', 'that address is not one of this machine'],
    ] as const;
    const runs = await Promise.all(
      hosts.map(([host]) => runCliAsync(['stub', '--port', '0', '--quiet', '--host', host])),
    );
    for (const [i, [host, reason]] of hosts.entries()) {
      const run = runs[i]!;
      expect(run.status).toBe(2);
      expect(run.stderr.trim().split('\n')).toHaveLength(1);
      expect(run.stderr).toContain(`badge-sim: cannot listen on ${host}:0: ${reason}`);
      expect(run.stderr).not.toMatch(/\n\s+at /);
    }
  });

  test.each(['1e-9', '5e-324', '0.0009', '2e6'])(
    '--scale %s is refused like PUT /_stub/clock: 0.001 to 1000000, naming the flag and its variable',
    async (scale) => {
      const run = await refusal(['--port', '0', '--clock', 'scaled', '--scale', scale]);
      expect(run.status).toBe(2);
      expect(run.stderr).toContain(
        '--scale (BADGE_SIM_SCALE) must be from 0.001 to 1000000 times as fast as real time',
      );
      const env = await refusal(['--port', '0'], {
        BADGE_SIM_CLOCK: 'scaled',
        BADGE_SIM_SCALE: scale,
      });
      expect(env.status).toBe(2);
      expect(env.stderr).toContain('--scale (BADGE_SIM_SCALE) must be from 0.001 to 1000000');
    },
  );

  test('--scale out of bounds is refused by the command itself, from the flag and the variable: exit 2', async () => {
    const [flag, env] = await Promise.all([
      runCliAsync(['stub', '--port', '0', '--clock', 'scaled', '--scale', '2e6']),
      runCliAsync(['stub', '--port', '0'], { BADGE_SIM_CLOCK: 'scaled', BADGE_SIM_SCALE: '2e6' }),
    ]);
    for (const run of [flag, env]) {
      expect(run.status).toBe(2);
      expect(run.stderr).toContain(
        '--scale (BADGE_SIM_SCALE) must be from 0.001 to 1000000 times as fast as real time',
      );
    }
  });
});
