/**
 * The commands that talk to a running stub's control API (`run --stub`, `devices`, `env`)
 * against a stub whose control API is locked: with the token they work; without it, or with
 * another, they stop at once saying to pass --control-token.
 */
import { describe, expect, test } from 'vitest';
import { runCli, startCli } from '../support/cli.ts';

const TOKEN = 'cli-clients-control-token-5b1e';
const SCENARIO = 'scenarios/catalogue/single-acknowledgement.scenario.yaml';

async function lockedStub() {
  const cli = await startCli(
    ['stub', '--port', '0', '--quiet', '--clock', 'virtual'],
    'Press Ctrl+C to stop.',
    {
      BADGE_SIM_CONTROL_TOKEN: TOKEN,
    },
  );
  const url = /control API\s+(http:\/\/\S+)\/_stub/.exec(cli.output())![1]!;
  return Object.assign(cli, { url });
}

describe('--control-token on the commands that drive a stub', () => {
  test('run --stub URL: works with --control-token (or the variable); without it, or with another, fails at once saying to pass it', async () => {
    await using stub = await lockedStub();
    const withFlag = runCli(['run', SCENARIO, '--stub', stub.url, '--control-token', TOKEN]);
    expect(withFlag.stderr).toBe('');
    expect(withFlag.status).toBe(0);
    expect(withFlag.stdout).toContain('✓ Single acknowledgement');
    expect(withFlag.stdout + withFlag.stderr).not.toContain(TOKEN);
    const withVariable = runCli(['run', SCENARIO, '--stub', stub.url], {
      BADGE_SIM_CONTROL_TOKEN: TOKEN,
    });
    expect(withVariable.status).toBe(0);

    const without = runCli(['run', SCENARIO, '--stub', stub.url]);
    expect(without.status).toBe(2);
    expect(without.stderr).toBe(
      `badge-sim: the stub at ${stub.url} locks its control API: pass its token with --control-token <token> or BADGE_SIM_CONTROL_TOKEN.\n`,
    );
    const wrong = runCli(['run', SCENARIO, '--stub', stub.url, '--control-token', 'not-it']);
    expect(wrong.status).toBe(2);
    expect(wrong.stderr).toContain('refused the control token given (--control-token');
    expect(wrong.stderr).not.toContain('not-it');
  });

  test('devices and env: work with the token; without it they fail saying to pass --control-token', async () => {
    await using stub = await lockedStub();
    const devices = runCli([
      'devices',
      ...['--stub', stub.url, '--count', '1', '--for', '1s', '--control-token', TOKEN],
    ]);
    expect(devices.status).toBe(0);
    expect(devices.stdout).toContain('1 badges online');
    const noDevices = runCli(['devices', '--stub', stub.url, '--count', '1', '--for', '1s']);
    expect(noDevices.status).toBe(2);
    expect(noDevices.stderr).toContain(
      'locks its control API: pass its token with --control-token <token> or BADGE_SIM_CONTROL_TOKEN.',
    );

    const env = runCli(['env', '--stub', stub.url, '--json'], { BADGE_SIM_CONTROL_TOKEN: TOKEN });
    expect(env.status).toBe(0);
    expect(JSON.parse(env.stdout)[0]).toMatchObject({ environment: 'pro' });
    const noEnv = runCli(['env', '--stub', stub.url]);
    expect(noEnv.status).toBe(2);
    expect(noEnv.stderr).toContain('pass its token with --control-token <token>');
  });
});
