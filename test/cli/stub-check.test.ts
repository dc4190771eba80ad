/**
 * An unreachable or wrong stub is ONE error up front (issue 31 point 4): what was tried, what
 * answered, what to check, exit 2; `run --stub http://127.0.0.1:1` used to print 241 lines,
 * one failure per scenario, and exit 1. And every "run it again" line carries what the run
 * needs to be run again: the seed, `--stub`, and the control token's variable, never the token.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { rerunCommand } from '../../scenarios/runner/rerun-command.ts';
import { BIN, runCli, startCli } from '../support/cli.ts';
import { freePort } from '../support/http.ts';

/** Runs a command without blocking this process: the wrong server below answers from here. */
function runAsync(args: string[]): Promise<{ status: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      { encoding: 'utf8', timeout: 45_000 },
      (error, stdout, stderr) =>
        resolve({ status: error ? Number(error.code ?? -1) : 0, stdout, stderr }),
    );
  });
}

/** A server on 127.0.0.1 that is not a badge-sim stub: a web page's 404 for every path. */
let wrong: Server;
let wrongUrl: string;
beforeAll(async () => {
  wrong = createServer((_request, response) => {
    response.writeHead(404, { 'content-type': 'text/html' });
    response.end('<html>not here</html>');
  });
  await new Promise<void>((resolve) => wrong.listen(0, '127.0.0.1', resolve));
  wrongUrl = `http://127.0.0.1:${(wrong.address() as { port: number }).port}`;
});
afterAll(() => new Promise((resolve) => wrong.close(resolve)));

describe('a stub that is not there is one error up front, exit 2', () => {
  test('run --stub on a port fetch refuses: one line, nothing run', () => {
    const run = runCli(['run', '--stub', 'http://127.0.0.1:1']);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe(
      'badge-sim: no badge-sim stub answers at http://127.0.0.1:1: GET http://127.0.0.1:1/_stub/settings was not sent: fetch refuses port 1 (a "bad port" of the Fetch standard). Check --stub: run the stub on another port, such as 8080 (badge-sim stub --port 8080), or leave out --stub: run then starts a stub of its own.\n',
    );
    expect(run.status).toBe(2);
  });

  test('nothing listening: run, env and devices say the same, each once', async () => {
    const url = `http://127.0.0.1:${await freePort()}`;
    const said = (option: string) =>
      `badge-sim: no badge-sim stub answers at ${url}: GET ${url}/_stub/settings was refused: nothing listens on ${url.slice(7)} (ECONNREFUSED). Check that the stub is running (badge-sim stub --port ${url.split(':')[2]}, or its container) and that ${option} gives its host and port`;
    const run = runCli(['run', '--stub', url]);
    expect(run.stderr).toBe(
      `${said('--stub')}, or leave out --stub: run then starts a stub of its own.\n`,
    );
    expect(run.status).toBe(2);
    const env = runCli(['env', '--stub', url]);
    expect(env.stderr).toBe(`${said('--stub')}.\n`);
    expect(env.status).toBe(2);
    const devices = runCli(['devices', '--stub', url, '--wait', '0']);
    expect(devices.stderr).toBe(`${said('--stub')}.\n`);
    expect(devices.status).toBe(2);
  });

  test('a server that is not a badge-sim stub: what answered, and to check the URL', async () => {
    const said = `badge-sim: ${wrongUrl} is not a badge-sim stub: GET ${wrongUrl}/_stub/settings answered 404 Not Found (text/html). Check that --stub is the base URL of a badge-sim stub (as its "control API" line prints it, without /_stub), not of another server.\n`;
    for (const command of ['run', 'env', 'devices']) {
      const ran = await runAsync([command, '--stub', wrongUrl]);
      expect(ran.stderr, command).toBe(said);
      expect(ran.status, command).toBe(2);
    }
    const controlApi = await runAsync(['run', '--stub', `${wrongUrl}/_stub`]);
    expect(controlApi.stderr).toBe(
      `badge-sim: ${wrongUrl}/_stub is not a badge-sim stub: GET ${wrongUrl}/_stub/_stub/settings answered 404 Not Found (text/html). Check --stub: give the stub's base URL, without /_stub: --stub ${wrongUrl}.\n`,
    );
    expect(controlApi.status).toBe(2);
  });

  test('not a URL, and a host that does not resolve', () => {
    const word = runCli(['env', '--stub', 'localhost:8080']);
    expect(word.stderr).toBe(
      'badge-sim: --stub localhost:8080 is not a URL such as http://127.0.0.1:8080.\n',
    );
    expect(word.status).toBe(2);
    const host = runCli(['run', '--stub', 'http://no-such-host.invalid:8080']);
    expect(host.stderr).toContain(
      'GET http://no-such-host.invalid:8080/_stub/settings found no host no-such-host.invalid (ENOTFOUND). Check the host name in --stub',
    );
    expect(host.status).toBe(2);
  });

  test('analytics: nothing at --base-url, or not the service there', async () => {
    const url = `http://127.0.0.1:${await freePort()}`;
    const args = ['-s', '100001', '--api-key', 'demo-api-key-riverside-0001'];
    const nothing = runCli(['analytics', '--base-url', url, ...args]);
    expect(nothing.stderr).toBe(
      `badge-sim: nothing answers at ${url}: GET ${url}/subscribers/100001/api/v1/events was refused: nothing listens on ${url.slice(7)} (ECONNREFUSED). Check that the stub is running (badge-sim stub --port ${url.split(':')[2]}, or its container) and that --base-url gives its host and port.\n`,
    );
    expect(nothing.status).toBe(2);
    const other = await runAsync(['analytics', '--base-url', wrongUrl, ...args]);
    expect(other.stderr).toBe(
      `badge-sim: GET ${wrongUrl}/subscribers/100001/api/v1/events answered 404 (not the service's JSON): check that --base-url is the service's {base_url} (a badge-sim stub's base URL, as its "service API" line prints it, before /subscribers) and -s 100001 an account of it.\n`,
    );
    expect(other.status).toBe(2);
  });
});

describe('"run it again" carries the options that matter', () => {
  const dir = mkdtempSync(join(tmpdir(), 'badge-sim-rerun-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const failing = join(dir, 'failing.scenario.yaml');
  writeFileSync(
    failing,
    `name: Wrong on purpose
proves: Nothing; it expects a timeout where the alert is still running.
badges: { group: Nurses }
timeline:
  - at: 0s
    alert: { notification: One runner, groups: [Nurses], quorum: 1 }
    as: runner
duration: 1s
expect:
  tasks:
    runner: { outcome: timed_out }
`,
  );

  test('against a locked stub: --seed, --stub and the token variable, never the token', async () => {
    const token = 'rerun-control-token-7d2c';
    await using stub = await startCli(
      ['stub', '--port', '0', '--quiet', '--clock', 'virtual'],
      'Press Ctrl+C to stop.',
      { BADGE_SIM_CONTROL_TOKEN: token },
    );
    const url = /control API\s+(http:\/\/\S+)\/_stub/.exec(stub.output())![1]!;
    const run = await new Promise<{ stdout: string; stderr: string }>((resolve) =>
      execFile(
        process.execPath,
        [BIN, 'run', failing, '--stub', url, '--seed', '7'],
        {
          encoding: 'utf8',
          timeout: 45_000,
          env: { ...process.env, BADGE_SIM_CONTROL_TOKEN: token },
        },
        (_error, stdout, stderr) => resolve({ stdout, stderr }),
      ),
    );
    expect(run.stdout).toContain(
      `seed 7; run it again: BADGE_SIM_CONTROL_TOKEN=… npx badge-sim run ${failing} --seed 7 --stub ${url}\n`,
    );
    expect(run.stdout + run.stderr).not.toContain(token);
  });

  test('embedded, real time, a scenario given in code, a path a shell would split', () => {
    const base = { seed: 3, name: "Ben's alert" };
    expect(rerunCommand({ ...base, source: 'a.scenario.yaml', mode: 'embedded' })).toBe(
      'npx badge-sim run a.scenario.yaml --seed 3',
    );
    expect(rerunCommand({ ...base, source: 'a.scenario.yaml', mode: 'realtime' })).toBe(
      'npx badge-sim run a.scenario.yaml --seed 3 --realtime',
    );
    expect(rerunCommand({ ...base, source: '<code>', mode: 'embedded' })).toBe(
      `npx badge-sim run --grep 'Ben'\\''s alert' --seed 3`,
    );
    expect(
      rerunCommand({
        ...base,
        source: 'my suite/a.scenario.yaml',
        mode: 'external',
        stubUrl: 'http://127.0.0.1:8080',
      }),
    ).toBe("npx badge-sim run 'my suite/a.scenario.yaml' --seed 3 --stub http://127.0.0.1:8080");
  });
});
