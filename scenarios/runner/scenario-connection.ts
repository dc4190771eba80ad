/**
 * How a run reaches its stub: one in this process (kept from scenario to scenario on the
 * virtual clock, or started on the wall clock) or the external one by URL, as a
 * `StubConnection`, with the fetch its clients send with and the control API's refusals as
 * ScenarioErrors.
 */

import { StubControlClient } from '../../client/control-client.ts';
import type { Fixtures } from '../../fixtures/fixtures.schema.ts';
import type { StubSettings } from '../../protocol/control-api.schema.ts';
import { startStub } from '../../server-stub/start-stub.ts';
import { HttpStubConnection } from '../../stub-connection/http-stub-connection.ts';
import { InProcessStubConnection } from '../../stub-connection/in-process-stub-connection.ts';
import type { FromSnapshot } from '../format/from-snapshot.ts';
import { ScenarioError } from '../format/load-scenario.ts';
import type { ScenarioSettings } from '../format/scenario.schema.ts';
import { injectFetch } from './inject-fetch.ts';
import { loopbackFetch } from './loopback-fetch.ts';
import type { RunMode } from './rerun-command.ts';
import type { ConnectedStub } from './run-trace.ts';
import { leaseScenarioStub } from './scenario-stubs.ts';

/** What of a run's options (RunOptions) says how it reaches its stub. */
interface StubReach {
  stubUrl?: string;
  controlToken?: string;
  link?: 'in-process' | 'network';
  /** A `from:` world is restored next: an external stub is not loaded with the fixtures first (WS22). */
  restoring?: boolean;
}

/**
 * A stub in this process with the scenario's fixtures (on the virtual clock, a kept one
 * renewed: scenario-stubs.ts), or the external one loaded with them; `send`, the fetch the
 * runner's clients send to it with; `release` gives a kept stub back once the scenario is over.
 */
export async function connectStub(
  mode: RunMode,
  fixtures: Fixtures,
  seed: number,
  settings: ScenarioSettings,
  options: StubReach,
): Promise<ConnectedStub> {
  if (mode === 'external') {
    if (!options.stubUrl)
      throw new ScenarioError('badge-sim: external mode needs the stub URL (--stub URL)');
    const stubUrl = options.stubUrl.replace(/\/+$/, '');
    const connection = new HttpStubConnection(
      stubUrl,
      new ScenarioStubControl(stubUrl, options.controlToken),
      {
        unreachable: (code) =>
          new ScenarioError(`badge-sim: the stub at ${stubUrl} is unreachable (${code})`),
      },
    );
    try {
      checkExternalSettings(settings, await connection.settings(), stubUrl);
      if (!options.restoring) await connection.prepare(fixtures);
    } catch (error) {
      await connection.close();
      throw error;
    }
    return { connection, send: fetch };
  }
  if (mode === 'embedded') {
    const lease = await leaseScenarioStub(fixtures, seed, settings);
    const inProcess = options.link !== 'network';
    // A stub in this process is sent to without a socket (SP6), or without fetch's machinery (SP4).
    const send = inProcess ? injectFetch(lease.stub) : loopbackFetch;
    const connection = new InProcessStubConnection(lease.stub, {
      control: () => new ScenarioStubControl(lease.stub.url, undefined, send),
      inProcessDevices: inProcess,
    });
    return { connection, send, release: lease.release, stub: lease.stub };
  }
  const stub = await startStub({
    fixtures,
    seed,
    clock: 'real',
    settings: {
      cancelEvents: settings.cancel_events,
      unknownFields: settings.unknown_fields,
      urnWord: settings.urn_word,
    },
  });
  const connection = new InProcessStubConnection(stub, {
    control: () => new ScenarioStubControl(stub.url, undefined, loopbackFetch),
    ownsStub: true,
  });
  return { connection, send: loopbackFetch, stub };
}

/**
 * A `from:` scenario's world put into its stub before anything else, through the control API
 * (PUT /_stub/snapshot), in this process or another (WS22): checked whole there, so a refused
 * snapshot leaves the stub as it was. The virtual clock only: a world on the wall clock would
 * have moved on from its instant.
 */
export async function restoreWorld(
  connected: ConnectedStub,
  from: FromSnapshot,
  mode: RunMode,
  options: StubReach & { place: (path: string) => string },
): Promise<void> {
  const at = `badge-sim: ${options.place('from')}: from: ${from.file}`;
  if (mode === 'realtime')
    throw new ScenarioError(
      `${at}: a snapshot starts on the virtual clock: run this scenario embedded (leave out --realtime) or against a stub (--stub URL)`,
    );
  const { connection, send } = connected;
  try {
    await new RestoreControl(connection.url, options.controlToken, send).restore(from.world);
  } catch (error) {
    if (!(error instanceof ScenarioError)) throw error;
    throw new ScenarioError(`${at}: ${error.message.replace(/^badge-sim: /, '')}`);
  }
}

/**
 * The settings a scenario needs, held against those an external stub runs with: the runner
 * cannot change them there (decision Y4), so a difference is an error saying how to start it.
 */
function checkExternalSettings(
  needed: ScenarioSettings,
  running: StubSettings,
  stubUrl: string,
): void {
  const wrong = [
    ['cancel_events', '--cancel-events', needed.cancel_events, running.cancelEvents],
    ['unknown_fields', '--unknown-fields', needed.unknown_fields, running.unknownFields],
    ['urn_word', '--urn-word', needed.urn_word, running.urnWord],
  ].filter(([, , want, has]) => want !== undefined && want !== has);
  if (wrong.length > 0)
    throw new ScenarioError(
      `badge-sim: the scenario needs ${wrong.map(([key, , want, has]) => `settings.${key} ${want} (the stub at ${stubUrl} runs ${has})`).join(' and ')}: start that stub with ${wrong.map(([, flag, want]) => `${flag} ${want}`).join(' ')}`,
    );
}

/** The stub's control API; a refusal is a ScenarioError, reported with the scenario. */
export class ScenarioStubControl extends StubControlClient {
  constructor(
    private readonly stubUrl: string,
    controlToken?: string,
    send?: typeof fetch,
  ) {
    super(stubUrl, { controlToken, ...(send ? { fetch: send } : {}) });
  }

  protected override refusal(status: number, body: unknown, what: string): Error {
    const code = (body as { code?: unknown } | undefined)?.code;
    if (status === 401 && (code === 'missing_control_token' || code === 'invalid_control_token'))
      return new ScenarioError(
        `badge-sim: the stub at ${this.stubUrl} locks its control API and ${code === 'missing_control_token' ? 'no control token was given' : 'refused the control token given'}: pass its token with --control-token or BADGE_SIM_CONTROL_TOKEN (controlToken in code)`,
      );
    return new ScenarioError(
      `badge-sim: the stub at ${this.stubUrl} refused ${what}: ${status} ${JSON.stringify(body)}`,
    );
  }
}

/** The control API restoring a `from:` world: a refusal says the stub's reason, its field first. */
class RestoreControl extends ScenarioStubControl {
  protected override refusal(status: number, body: unknown, what: string): Error {
    const message = (body as { message?: unknown } | undefined)?.message;
    if ((status !== 400 && status !== 409 && status !== 413) || typeof message !== 'string')
      return super.refusal(status, body, what);
    return new ScenarioError(`the stub refused it (${status}): ${message}`);
  }
}
