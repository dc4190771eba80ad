/**
 * The embedded stubs of scenarios, reused (decision SP1). Building a stub (fastify, its ~100
 * routes and their schemas, the OpenAPI answers) costs tens of ms; a scenario on the virtual
 * clock takes a few. So a stub that ran a scenario on the virtual clock is kept, idle, and the
 * next scenario with the same settings takes it, renewed (`StubCore.renew`): as a new stub
 * would be, with that scenario's fixtures and seed. Each scenario still starts from a clean
 * world: the same scenario and seed give byte-identical reports on a kept stub or a new one.
 *
 * An idle stub keeps its port and its clients' keep-alive connections for IDLE_KEEP_MS, then
 * it is closed; neither keeps the process alive (unref'd): a process that is done exits.
 * `closeScenarioStubs()` closes them at once.
 */
import type { Socket } from 'node:net';
import type { Fixtures } from '../../fixtures/fixtures.schema.ts';
import { type StubHandle, startStub } from '../../server-stub/start-stub.ts';
import type { ScenarioSettings } from '../format/scenario.schema.ts';

/** Idle stubs kept at most, all settings together; one more released is closed. */
const IDLE_STUBS_MAX = 4;
/** Real ms a released stub may take to see its badges' sockets close before it is dropped. */
const RELEASE_WAIT_MS = 1_000;
/**
 * Real ms an idle stub is kept for the next scenario; then it is closed. Well below the
 * stub's keep-alive timeout (5 s): a keep-alive connection of a scenario's client is still
 * open at both ends when the next scenario's client takes it again, even after the event
 * loop was blocked meanwhile (a synchronous child process), when no timer could run.
 */
const IDLE_KEEP_MS = 1_000;

/** A stub lent to one scenario: give it back with `release()` when the scenario is over. */
export interface StubLease {
  readonly stub: StubHandle;
  /** Kept for the next scenario if it is clean, else closed. Never throws. */
  release(): Promise<void>;
}

interface IdleStub {
  readonly key: string;
  readonly stub: StubHandle;
  /** The fixtures document it was last given, and the core's copy of it then. */
  readonly given: Fixtures;
  readonly loaded: Fixtures;
  /** When it was given back (performance.now), and the timer that closes it if nobody comes. */
  releasedAt?: number;
  expiry?: NodeJS.Timeout;
}

const idle: IdleStub[] = [];
/** Stubs started and stubs renewed so far in this process (for tests and benches). */
const counts = { started: 0, renewed: 0 };

/** How many stubs scenarios have started, and how many times one was kept and renewed. */
export function scenarioStubCounts(): { started: number; renewed: number } {
  return { ...counts };
}

/**
 * A stub on the virtual clock with these fixtures, seed and settings: a kept one renewed, or
 * a new one.
 */
export async function leaseScenarioStub(
  fixtures: Fixtures,
  seed: number,
  settings: ScenarioSettings,
): Promise<StubLease> {
  const key = JSON.stringify([settings.cancel_events, settings.unknown_fields, settings.urn_word]);
  closeExpired();
  const index = idle.findIndex((kept) => kept.key === key);
  let stub: StubHandle;
  if (index >= 0) {
    const [kept] = idle.splice(index, 1);
    clearTimeout(kept!.expiry);
    stub = kept!.stub;
    // The fixtures are checked and copied again only when they are other ones, or were
    // replaced meanwhile (a scenario's request to PUT /_stub/fixtures).
    const same = kept!.given === fixtures && stub.core.fixtures === kept!.loaded;
    stub.core.renew({ fixtures: same ? undefined : fixtures, seed });
    stub.app.server.ref();
    counts.renewed++;
  } else {
    stub = await startStub({
      fixtures,
      seed,
      clock: 'virtual',
      settings: {
        cancelEvents: settings.cancel_events,
        unknownFields: settings.unknown_fields,
        urnWord: settings.urn_word,
      },
    });
    // The clients' keep-alive connections stay open from one scenario to the next (closing
    // them at the end of one races the next one's first request), and must not hold the
    // process open either: while a scenario runs, its clients' own sockets keep it alive.
    stub.app.server.on('connection', (socket: Socket) => socket.unref());
    counts.started++;
  }
  const loaded = stub.core.fixtures;
  let released: Promise<void> | undefined;
  return {
    stub,
    release: () => {
      released ??= keepOrClose({ key, stub, given: fixtures, loaded });
      return released;
    },
  };
}

/** Closes every idle stub (a stub lent out is closed when it is given back). */
export async function closeScenarioStubs(): Promise<void> {
  await closeAll(idle.splice(0));
}

/** Closes the idle stubs kept past IDLE_KEEP_MS (their timers may not have run yet). */
function closeExpired(): void {
  const now = performance.now();
  const expired = idle.filter((kept) => now - kept.releasedAt! > IDLE_KEEP_MS);
  if (expired.length === 0) return;
  for (const kept of expired) idle.splice(idle.indexOf(kept), 1);
  void closeAll(expired);
}

async function closeAll(stubs: IdleStub[]): Promise<void> {
  for (const kept of stubs) clearTimeout(kept.expiry);
  await Promise.allSettled(stubs.map(({ stub }) => stub.close()));
}

/**
 * Kept when, within RELEASE_WAIT_MS, the stub holds no badge connection and its clock is
 * virtual, and fewer than IDLE_STUBS_MAX are idle; closed otherwise.
 */
async function keepOrClose(candidate: IdleStub): Promise<void> {
  const { stub } = candidate;
  const clean =
    (await noConnections(stub)) &&
    stub.core.clock.mode === 'virtual' &&
    idle.length < IDLE_STUBS_MAX;
  if (!clean) {
    await stub.close().catch(() => undefined);
    return;
  }
  stub.app.server.unref();
  candidate.releasedAt = performance.now();
  candidate.expiry = setTimeout(closeExpired, IDLE_KEEP_MS + 1);
  candidate.expiry.unref();
  idle.push(candidate);
}

/** Waits (real time, bounded) until the badges' closes have reached the stub's gateway. */
async function noConnections(stub: StubHandle): Promise<boolean> {
  const gateway = stub.app.gateway;
  const deadline = performance.now() + RELEASE_WAIT_MS;
  while (gateway.connectionStats().length > 0) {
    if (performance.now() > deadline) return false;
    await new Promise((resolve) => setImmediate(resolve));
  }
  return true;
}
