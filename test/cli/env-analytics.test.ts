/** `badge-sim env` and `badge-sim analytics` as a user runs them, against a stub process. */
import { spawnSync } from 'node:child_process';
import { describe, expect, test } from 'vitest';
import { BIN, startStubProcess } from '../support/cli.ts';
import { RIVERSIDE, request } from '../support/http.ts';

function run(args: string[], env: Record<string, string> = {}) {
  return spawnSync(process.execPath, [BIN, ...args], {
    encoding: 'utf8',
    timeout: 20_000,
    env: { ...process.env, ...env },
  });
}

describe('badge-sim env', () => {
  test('lists both environments with their hosts and client ids; pro is the default', async () => {
    await using stub = await startStubProcess(['--clock', 'virtual']);
    const table = run(['env', '--stub', stub.url]);
    expect(table.status).toBe(0);
    const lines = table.stdout.trim().split('\n');
    expect(lines[0]).toMatch(
      /^ENVIRONMENT\s+API HOST\s+AUTH HOST\s+CLI CLIENT ID\s+SDK CLIENT ID$/,
    );
    expect(lines[1]).toMatch(
      new RegExp(
        `^pro \\(default\\)\\s+${stub.url}\\s+${stub.url}\\s+badge-sim-pro-cli\\s+badge-sim-pro-sdk$`,
      ),
    );
    expect(lines[2]).toMatch(
      new RegExp(
        `^qa\\s+${stub.url}/qa\\s+${stub.url}/qa\\s+badge-sim-qa-cli\\s+badge-sim-qa-sdk$`,
      ),
    );
    const json = JSON.parse(run(['env', '--stub', stub.url, '--json']).stdout);
    expect(json[1]).toEqual({
      environment: 'qa',
      default: false,
      api_host: `${stub.url}/qa`,
      auth_host: `${stub.url}/qa`,
      cli_client_id: 'badge-sim-qa-cli',
      sdk_client_id: 'badge-sim-qa-sdk',
    });
    const unreachable = run(['env', '--stub', 'http://127.0.0.1:9']);
    expect(unreachable.status).toBe(2);
    expect(unreachable.stderr).toContain('no badge-sim stub answers at http://127.0.0.1:9');
  });
});

describe('badge-sim analytics', () => {
  test('the 20 most recent events by default, the original columns, --limit and --json; the key never printed', async () => {
    await using stub = await startStubProcess(['--clock', 'virtual']);
    const auth = { authorization: `ServiceApiKey ${RIVERSIDE.key}` };
    // 25 alerts to a group with two devices that nobody acknowledges: 25 start events, one a second.
    for (let i = 0; i < 25; i++) {
      await request(`${stub.url}/subscribers/100001/api/v1/alerts`, {
        method: 'POST',
        headers: auth,
        body: { notification: `n${i}`, groups: ['Security'], name: `drill-${i}` },
      });
      await request(`${stub.url}/_stub/clock/advance`, { method: 'POST', body: { by: '1s' } });
    }
    const env = { BADGE_SIM_API_KEY: RIVERSIDE.key };
    const listing = run(['analytics', '--base-url', stub.url, '-s', '100001'], env);
    expect(listing.status).toBe(0);
    const lines = listing.stdout.trim().split('\n');
    expect(lines[0]).toMatch(
      /^WORKFLOW ID\s+TYPE\s+CATEGORY\s+INSTANCE ID\s+TIMESTAMP\s+USER ID\s+CONTENT$/,
    );
    expect(lines).toHaveLength(21);
    expect(lines[1]).toMatch(
      /^drill-5\s+start\s+tasks\s+\w{22}\s+2026-01-01T00:00:05\.000000Z\s+\{"task":/,
    );
    expect(lines[20]).toContain('drill-24');
    expect(listing.stderr).toContain('20 of 25 events of the last 7 days');
    expect(listing.stdout + listing.stderr).not.toContain(RIVERSIDE.key);
    const limited = JSON.parse(
      run(['analytics', '--base-url', stub.url, '-s', '100001', '--limit', '3', '--json'], env)
        .stdout,
    );
    expect(limited.map((e: any) => e.task.name)).toEqual(['drill-22', 'drill-23', 'drill-24']);
  });

  test('no key, a wrong key and an unreachable service are reported plainly, without the key', async () => {
    await using stub = await startStubProcess(['--clock', 'virtual']);
    const noKey = run(['analytics', '--base-url', stub.url, '-s', '100001'], {
      BADGE_SIM_API_KEY: '',
    });
    expect(noKey.status).toBe(2);
    expect(noKey.stderr).toContain('BADGE_SIM_API_KEY');
    const wrong = run([
      'analytics',
      '--base-url',
      stub.url,
      '-s',
      '100001',
      '--api-key',
      'wrong-key-123',
    ]);
    expect(wrong.status).toBe(2);
    expect(wrong.stderr).toContain('answered 401');
    expect(wrong.stderr).not.toContain('wrong-key-123');
    const unreachable = run(['analytics', '--base-url', 'http://127.0.0.1:9', '-s', '1'], {
      BADGE_SIM_API_KEY: 'x-123456789',
    });
    expect(unreachable.stderr).toContain('nothing answers at http://127.0.0.1:9');
  });
});
