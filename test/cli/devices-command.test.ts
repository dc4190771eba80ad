/** `badge-sim devices` as a user runs it: a stub process, a fleet process, an alert acknowledged. */

import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, test } from 'vitest';
import { devicesCommand } from '../../cli/devices.command.ts';
import { BIN, runCli, runCliAsync, startCli, startStubProcess } from '../support/cli.ts';
import { refusalInProcess } from '../support/command-in-process.ts';
import { freePort, RIVERSIDE, request } from '../support/http.ts';

/** `badge-sim devices …`'s refusal, parsed in this process (a real process keeps one case each). */
const refusal = (args: string[]) => refusalInProcess(devicesCommand(), args);

const AUTH = { authorization: `ServiceApiKey ${RIVERSIDE.key}` };
/** Three nurses who tap 12 s after the alert first plays. */
const ACKNOWLEDGED_AT_12 = [
  'start@00',
  'acknowledged@12',
  'acknowledged@12',
  'acknowledged@12',
  'end@12',
];

function postToNurses(stubUrl: string) {
  return request(`${stubUrl}/subscribers/100001/api/v1/alerts`, {
    method: 'POST',
    headers: AUTH,
    body: { notification: 'Spill in ward 3', groups: ['Nurses'] },
  });
}

/** A minute's jump of the stub's clock (the authority), then its events as `type@second`. */
async function jumpAndReadEvents(stubUrl: string): Promise<string[]> {
  await request(`${stubUrl}/_stub/clock/advance`, { method: 'POST', body: { by: '1m' } });
  const events = (
    await request<any[]>(`${stubUrl}/subscribers/100001/api/v1/events`, { headers: AUTH })
  ).body;
  return events.map((e) => `${e.content.type}@${e.timestamp.slice(17, 19)}`);
}

describe('badge-sim devices', () => {
  test('badges connect, hear an alert, acknowledge after 12 s of virtual time, and report at the end', async () => {
    await using stub = await startStubProcess(['--clock', 'virtual']);
    await using devices = await startCli(
      ['devices', '--stub', stub.url, '--group', 'Nurses', '--ack-after', '12s'],
      'Press Ctrl+C to stop.',
    );
    expect(devices.output()).toContain('3 badges online');
    expect(devices.errors()).toContain('connected 3/3');
    await postToNurses(stub.url);
    await expect.poll(devices.output).toContain('Ben Okafor (350000000000002) hears alert');
    expect(await jumpAndReadEvents(stub.url)).toEqual(ACKNOWLEDGED_AT_12);
    expect(devices.output()).toContain('taps the talk button');
    devices.child.kill('SIGINT');
    const [code] = await once(devices.child, 'exit');
    expect(code).toBe(0);
    expect(devices.output()).toContain('taps sent      3');
  });

  test('a tap made for one of its badges through the control API gets a line, and the summary counts it apart from the badges’ own', async () => {
    await using stub = await startStubProcess(['--clock', 'virtual']);
    await using devices = await startCli(
      ['devices', '--stub', stub.url, '--group', 'Nurses'],
      'Press Ctrl+C to stop.',
    );
    const posted = await postToNurses(stub.url);
    const taskId = (posted.body as { task_id: string }).task_id;
    await expect.poll(devices.output).toContain('Ada Mensah (350000000000001) hears alert');
    const tap = await request(`${stub.url}/_stub/devices/350000000000001/tap`, { method: 'POST' });
    expect(tap.body).toMatchObject({ result: 'acknowledged', task_id: taskId });
    await expect
      .poll(devices.output)
      .toContain(
        `Ada Mensah (350000000000001) is tapped through the control API: acknowledges ${taskId}`,
      );
    devices.child.kill('SIGINT');
    const [code] = await once(devices.child, 'exit');
    expect(code).toBe(0);
    expect(devices.output()).toContain('taps sent      0 by the badges, 1 through the control API');
  });

  test('--workers 2: the badges run in two threads, acknowledge at 12 s of the jump, and the summary adds both up', async () => {
    await using stub = await startStubProcess(['--clock', 'virtual']);
    await using devices = await startCli(
      ['devices', '--stub', stub.url, '--group', 'Nurses', '--ack-after', '12s', '--workers', '2'],
      'Press Ctrl+C to stop.',
    );
    expect(devices.output()).toContain('3 badges online in 2 worker threads');
    await postToNurses(stub.url);
    expect(await jumpAndReadEvents(stub.url)).toEqual(ACKNOWLEDGED_AT_12);
    devices.child.kill('SIGINT');
    const [code] = await once(devices.child, 'exit');
    expect(code).toBe(0);
    expect(devices.output()).toContain('alerts heard   3 plays');
    expect(devices.output()).toContain('taps sent      3');
    expect(devices.output()).toContain('3 of 3 online');
    const bad = runCli(['devices', '--workers', '0']);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('--workers');
  });

  test('more badges than the process may open files (ulimit -n) is refused before connecting, saying what to do; the stub warns in its banner', async () => {
    const underLimit = (limit: number, args: string[]) =>
      spawnSync(
        'bash',
        ['-c', `ulimit -n ${limit} && exec "$0" "$@"`, process.execPath, BIN, ...args],
        {
          encoding: 'utf8',
          timeout: 45_000,
        },
      );
    await using stub = await startStubProcess(['--generate', '700', '--clock', 'real']);
    const refused = underLimit(500, ['devices', '--stub', stub.url, '--count', '700']);
    expect(refused.status).toBe(2);
    expect(refused.stderr).toContain(
      'badge-sim: 700 badges need 700 sockets, but this process may open at most 500 files (ulimit -n), room for 400 badges',
    );
    expect(refused.stderr).toContain('--shard i/n');
    const limited = spawn(
      'bash',
      ['-c', 'ulimit -n 500 && exec "$0" "$@"', process.execPath, BIN, 'stub', '--port', '0'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let banner = '';
    limited.stdout.on('data', (chunk) => {
      banner += chunk;
    });
    try {
      await expect.poll(() => banner, { timeout: 30_000 }).toContain('Press Ctrl+C to stop.');
    } finally {
      limited.kill();
    }
    expect(banner).not.toContain('open files');
    const crowded = spawn(
      'bash',
      [
        '-c',
        'ulimit -n 500 && exec "$0" "$@"',
        process.execPath,
        BIN,
        'stub',
        '--port',
        '0',
        '--generate',
        '700',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    banner = '';
    crowded.stdout.on('data', (chunk) => {
      banner += chunk;
    });
    try {
      await expect.poll(() => banner, { timeout: 30_000 }).toContain('Press Ctrl+C to stop.');
    } finally {
      crowded.kill();
    }
    expect(banner).toContain(
      'open files   at most 500 (ulimit -n): about 400 badges can be connected at once, fewer than the devices',
    );
  });

  test('an unreachable stub, an unknown group and bad behaviours are reported plainly', async () => {
    // The stub looked for, and the badges' behaviours, in real processes; the behaviour
    // flags' other refusals in this process (the same parser).
    const [unreachable, badRange] = await Promise.all([
      runCliAsync(['devices', '--stub', 'http://127.0.0.1:9']),
      runCliAsync(['devices', '--ack-after', 'soon']),
    ]);
    expect(unreachable.status).toBe(2);
    expect(unreachable.stderr).toContain('no badge-sim stub answers at http://127.0.0.1:9');
    expect(unreachable.stderr).toContain('badge-sim stub');
    expect(badRange.status).toBe(2);
    expect(badRange.stderr).toContain("--ack-after 'soon' is not a duration");
    const both = await refusal(['--ack-after', '5s', '--ack-on-repeat', '1']);
    expect(both.status).toBe(2);
    expect(both.stderr).toContain('either --ack-after or --ack-on-repeat');
    const badVanish = await refusal(['--vanish-at', '10s..soon']);
    expect(badVanish.status).toBe(2);
    expect(badVanish.stderr).toContain("--vanish-at '10s..soon' is not a duration or a range");
    const vanishForAlone = await refusal(['--vanish-for', '5s']);
    expect(vanishForAlone.status).toBe(2);
    expect(vanishForAlone.stderr).toContain('--vanish-for needs --vanish-at');
    await using stub = await startStubProcess();
    const [group, tooMany] = await Promise.all([
      runCliAsync(['devices', '--stub', stub.url, '--group', 'Astronauts']),
      runCliAsync(['devices', '--stub', stub.url, '--count', '50']),
    ]);
    expect(group.status).toBe(2);
    expect(group.stderr).toContain("no group 'Astronauts'");
    expect(group.stderr).toContain('Nurses');
    expect(tooMany.stderr).toContain('--generate 50');
  });

  test('the fleet outlives its stub: killed and restarted on the same port, the badges reconnect and the process runs on', async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const stubArgs = ['stub', '--port', String(port), '--quiet', '--clock', 'virtual'];
    await using first = await startCli(stubArgs, 'Press Ctrl+C to stop.');
    await using devices = await startCli(
      ['devices', '--stub', url, '--group', 'Nurses', '--ack-after', '12s'],
      'Press Ctrl+C to stop.',
    );
    first.child.kill('SIGKILL');
    await once(first.child, 'exit');
    await expect
      .poll(devices.output, { timeout: 10_000 })
      .toMatch(/lost the stub, reconnecting: \d of 3 online · \d reconnecting \(stub unreachable/);
    expect(devices.child.exitCode).toBeNull();

    await using second = await startCli(stubArgs, 'Press Ctrl+C to stop.');
    await expect
      .poll(devices.output, { timeout: 30_000 })
      .toMatch(/back online: 3 of 3 online \(the stub was unreachable \d/);
    const devicesOnStub = (await request<any[]>(`${url}/_stub/devices`)).body;
    expect(devicesOnStub.filter((d) => d.online).map((d) => d.user)).toEqual([
      'Ada Mensah',
      'Ben Okafor',
      'Lena Ortiz',
    ]);
    // The restarted stub's alert is heard and acknowledged as before.
    const api = `${url}/subscribers/100001/api/v1`;
    const auth = { authorization: `ServiceApiKey ${RIVERSIDE.key}` };
    await request(`${api}/alerts`, {
      method: 'POST',
      headers: auth,
      body: { notification: 'After the restart', groups: ['Nurses'] },
    });
    await expect.poll(devices.output).toContain('hears alert');
    await request(`${url}/_stub/clock/advance`, { method: 'POST', body: { by: '1m' } });
    const events = (await request<any[]>(`${api}/events`, { headers: auth })).body;
    expect(events.map((e) => e.content.type)).toEqual([
      'start',
      'acknowledged',
      'acknowledged',
      'acknowledged',
      'end',
    ]);
    devices.child.kill('SIGINT');
    const [code] = await once(devices.child, 'exit');
    expect(code).toBe(0);
    expect(devices.output()).toContain('connections    3 of 3 online; 3 reconnects');
    expect(devices.output()).toContain('taps sent      3');
    await second[Symbol.asyncDispose]();
  });

  test('started before its stub, it waits for it and then connects; --wait bounds the wait', async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    await using devices = await startCli(
      ['devices', '--stub', url, '--group', 'Nurses', '--for', '1m'],
      'waiting for the stub',
    );
    expect(devices.output()).toContain(
      `waiting for the stub at ${url} (ECONNREFUSED): retrying for up to 30s`,
    );
    await using _stub = await startCli(
      ['stub', '--port', String(port), '--quiet'],
      'Press Ctrl+C to stop.',
    );
    await expect.poll(devices.output, { timeout: 20_000 }).toContain('3 badges online against');

    const nobody = `http://127.0.0.1:${await freePort()}`;
    const gaveUp = runCli(['devices', '--stub', nobody, '--wait', '1s']);
    expect(gaveUp.status).toBe(2);
    expect(gaveUp.stdout).toContain(`waiting for the stub at ${nobody} (ECONNREFUSED)`);
    expect(gaveUp.stderr).toContain(
      `no badge-sim stub answers at ${nobody}: GET ${nobody}/_stub/settings was refused`,
    );
    expect(gaveUp.stderr).toContain('(ECONNREFUSED) (tried for 1 s)');
  });

  test.each([
    ['0s', '0s'],
    ['0s..0s', '0s'],
    ['1ms', '1s'],
    ['500ms..90s', '2s'],
  ])(
    '--flaky-every %s is refused: a flaky badge drops at most once a second',
    async (every, down) => {
      // Refused before it looks for a stub: port 9 has none.
      const flags = ['--stub', 'http://127.0.0.1:9', '--flaky-every', every, '--flaky-down', down];
      // One in a real process, the others parsed here.
      const run = every === '0s' ? await runCliAsync(['devices', ...flags]) : await refusal(flags);
      expect(run.status).toBe(2);
      expect(run.stderr).toContain(
        `--flaky-every '${every}' is shorter than 1s, the least time between drops`,
      );
    },
  );

  test('device-fault flags: every tap lost, a draining battery; the stub hears no tap and sees the battery', async () => {
    await using stub = await startStubProcess(['--clock', 'virtual']);
    await using devices = await startCli(
      [
        'devices',
        '--stub',
        stub.url,
        '--group',
        'Nurses',
        '--ack-after',
        '12s',
        '--tap-lose',
        '1',
        '--battery-from',
        '30',
        '--battery-drain',
        '1',
      ],
      'Press Ctrl+C to stop.',
    );
    const api = `${stub.url}/subscribers/100001/api/v1`;
    const auth = { authorization: `ServiceApiKey ${RIVERSIDE.key}` };
    await request(`${api}/alerts`, {
      method: 'POST',
      headers: auth,
      body: { notification: 'Spill in ward 3', groups: ['Nurses'] },
    });
    await expect.poll(devices.output).toContain('hears alert');
    await request(`${stub.url}/_stub/clock/advance`, { method: 'POST', body: { by: '2m' } });
    const events = (await request<any[]>(`${api}/events`, { headers: auth })).body;
    expect(events.map((e) => e.content.type)).toEqual(['start']);
    await expect
      .poll(async () =>
        (await request<any[]>(`${stub.url}/_stub/devices`)).body
          .filter((d) => d.online)
          .map((d) => d.battery_level),
      )
      .toEqual([28, 28, 28]);
    // What each badge believes and what became of it are both said, not "acknowledges" alone.
    expect(devices.output()).toContain(
      'taps the talk button: the tap is lost on the way: the stub never hears it',
    );
    expect(devices.output()).not.toContain('the tap acknowledges');
    devices.child.kill('SIGINT');
    await once(devices.child, 'exit');
    expect(devices.output()).toMatch(/taps faulted {3}\d+ frames lost, 0 delayed, 0 duplicated/);
  });

  test.each([
    [['--tap-lose', '2'], '--tap-lose must be a probability from 0 to 1, such as 0.05.'],
    [['--tap-lose', 'NaN'], '--tap-lose must be a probability from 0 to 1'],
    [['--tap-duplicate', '-1'], '--tap-duplicate must be a whole number from 2 to 10.'],
    [['--tap-delay', '5s..1s'], "--tap-delay '5s..1s' is not a duration or a range low..high"],
    [['--tap-delay-chance', '0.5'], '--tap-delay-chance needs --tap-delay.'],
    [['--tap-gap', '1s'], '--tap-gap needs --tap-duplicate.'],
    [['--drop-on-play', '1'], '--drop-on-play and --drop-chance need --drop-for.'],
    [
      ['--drop-on-play', '1', '--drop-chance', '0.1', '--drop-for', '5s'],
      'give either --drop-on-play or --drop-chance, not both.',
    ],
    [['--battery-drain', '0'], '--battery-drain must be a number from 0.01 to 100.'],
    [['--battery-from', '50'], '--battery-from needs --battery-drain.'],
  ])('%j is refused with what to fix, before it looks for a stub', async (flags, message) => {
    // Port 9 has no stub: a refusal comes first. One in a real process, the others parsed here.
    const args = ['--stub', 'http://127.0.0.1:9', ...flags];
    const run =
      flags[0] === '--tap-delay-chance'
        ? await runCliAsync(['devices', ...args])
        : await refusal(args);
    expect(run.status).toBe(2);
    expect(run.stderr).not.toContain('cannot reach the stub');
    expect(run.stderr).toContain(message);
  });

  test('--help lists the behaviours', () => {
    const help = runCli(['devices', '--help']);
    expect(help.status).toBe(0);
    for (const flag of [
      '--stub',
      '--count',
      '--group',
      '--ack-after',
      '--ack-on-repeat',
      '--offline-at',
      '--vanish-at',
      '--vanish-for',
      '--flaky-every',
      '--tap-lose',
      '--tap-delay',
      '--tap-duplicate',
      '--tap-gap',
      '--drop-on-play',
      '--drop-chance',
      '--drop-for',
      '--battery-drain',
      '--tts',
    ]) {
      expect(help.stdout).toContain(flag);
    }
  });
});
