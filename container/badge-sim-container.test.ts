/**
 * The testcontainers module without Docker: what the builder gives the container (its
 * control token, client ids, URN word), and what the started handle's control client sends
 * (against a stub in this process, or a `badge-sim stub` process, standing in for it).
 */
import type { StartedTestContainer } from 'testcontainers';
import { describe, expect, test } from 'vitest';
import { StubControlClient } from '../client/control-client.ts';
import { startStub } from '../server-stub/start-stub.ts';
import { startCli } from '../test/support/cli.ts';
import { BadgeSimContainer, CONTAINER_PORT } from './badge-sim-container.ts';

/** The module with its insides in reach: the environment it builds, and `handle()`. */
class Probe extends BadgeSimContainer {
  get env(): Record<string, string> {
    return this.environment;
  }

  open(started: StartedTestContainer) {
    return this.handle(started);
  }
}

describe('BadgeSimContainer: the control token', () => {
  test('is random by default, a new one for each container, and reaches the stub as BADGE_SIM_CONTROL_TOKEN; withControlToken chooses it', () => {
    const one = new Probe('badge-sim:test').env.BADGE_SIM_CONTROL_TOKEN;
    const two = new Probe('badge-sim:test').env.BADGE_SIM_CONTROL_TOKEN;
    expect(one).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(two).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(two).not.toBe(one);
    const chosen = new Probe('badge-sim:test').withControlToken('team-token-1');
    expect(chosen.env.BADGE_SIM_CONTROL_TOKEN).toBe('team-token-1');
    expect(() => new Probe('badge-sim:test').withControlToken('')).toThrow(
      'badge-sim: withControlToken: the token is empty',
    );
    expect(() => new Probe('badge-sim:test').withControlToken('a secret phrase')).toThrow(
      'badge-sim: withControlToken: the token must be 1 to 1024 visible ASCII',
    );
  });

  test("the started handle's control client sends the token, and the handle gives it to other clients", async () => {
    for (const chosen of [undefined, 'team-token-2']) {
      const container = new Probe('badge-sim:test');
      if (chosen) container.withControlToken(chosen);
      const token = container.env.BADGE_SIM_CONTROL_TOKEN!;
      // The stub the container would run, with the environment the module gave it.
      await using stub = await startStub({ controlToken: token });
      const started = {
        getHost: () => '127.0.0.1',
        getMappedPort: (port: number) => {
          expect(port).toBe(CONTAINER_PORT);
          return stub.port;
        },
      } as unknown as StartedTestContainer;
      const handle = await container.open(started);
      expect(handle.controlToken).toBe(token);
      expect(handle.settings.authScheme).toBe('ServiceApiKey');
      expect((await handle.control.fixtures()).accounts).toHaveLength(2);
      expect((await handle.control.reset()).status).toBe('ok');
      // Nobody else reads the fixtures without it.
      expect((await fetch(`${handle.controlUrl}/fixtures`)).status).toBe(401);
    }
  });
});

describe('BadgeSimContainer: client ids and the URN word', () => {
  test('withClientId, withUnknownClientIds and withUrnWord reach the stub as the BADGE_SIM_* variables it reads', async () => {
    const container = new Probe('badge-sim:test')
      .withClientId('pro', 'sdk', 'original-pro-sdk')
      .withClientId('qa', 'cli', 'original-qa-cli')
      .withUnknownClientIds('accept')
      .withBrandWord('acmepro')
      .withUrnWord('acme');
    expect(container.env).toMatchObject({
      BADGE_SIM_PRO_SDK_CLIENT_ID: 'original-pro-sdk',
      BADGE_SIM_QA_CLI_CLIENT_ID: 'original-qa-cli',
      BADGE_SIM_UNKNOWN_CLIENT_IDS: 'accept',
      BADGE_SIM_URN_WORD: 'acme',
    });
    // The image runs `badge-sim stub` with the container's environment: so does this test.
    await using cli = await startCli(['stub'], 'Press Ctrl+C to stop.', {
      ...container.env,
      BADGE_SIM_PORT: '0',
      BADGE_SIM_QUIET: 'true',
    });
    const url = /control API\s+(http:\/\/\S+)\/_stub/.exec(cli.output())![1]!;
    const token = container.env.BADGE_SIM_CONTROL_TOKEN!;
    const settings = await new StubControlClient(url, { controlToken: token }).settings();
    expect(settings).toMatchObject({
      brandWord: 'acmepro',
      urnWord: 'acme',
      unknownClientIds: 'accept',
      environments: {
        pro: { cliClientId: 'badge-sim-pro-cli', sdkClientId: 'original-pro-sdk' },
        qa: { cliClientId: 'original-qa-cli', sdkClientId: 'badge-sim-qa-sdk' },
      },
    });
  });

  test('refuses what cannot be a client id, an environment or a policy, naming the setter', () => {
    const probe = () => new Probe('badge-sim:test');
    expect(() => probe().withClientId('pro', 'sdk', 'two words')).toThrow(
      'badge-sim: withClientId: give 1 to 128 visible ASCII characters, no spaces',
    );
    expect(() => probe().withClientId('staging' as 'pro', 'sdk', 'x')).toThrow(
      "badge-sim: withClientId: give one of pro, qa (not 'staging')",
    );
    expect(() => probe().withClientId('pro', 'web' as 'sdk', 'x')).toThrow(
      "badge-sim: withClientId: give one of cli, sdk (not 'web')",
    );
    expect(() => probe().withUnknownClientIds('maybe' as 'accept')).toThrow(
      "badge-sim: withUnknownClientIds: give one of refuse, accept (not 'maybe')",
    );
    expect(() => probe().withUrnWord('a:b')).toThrow('badge-sim: withUrnWord: give letters');
  });
});
