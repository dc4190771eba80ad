/**
 * The testcontainers module's control token, without Docker: what the builder gives the
 * container, and what the started handle's control client sends (against a locked stub in
 * this process standing in for the container).
 */
import type { StartedTestContainer } from 'testcontainers';
import { describe, expect, test } from 'vitest';
import { startStub } from '../server-stub/start-stub.ts';
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
