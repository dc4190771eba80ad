import type { FastifyInstance } from 'fastify';
import type { ClockMode } from '../clock/clock.ts';
import type { Fixtures } from '../fixtures/fixtures.schema.ts';
import { DEFAULT_FIXTURES_FILE, loadFixturesFile } from '../fixtures/load-fixtures.ts';
import {
  CLOCK_SCALE_MAX,
  CLOCK_SCALE_MIN,
  CONTROL_PREFIX,
  controlTokenProblem,
} from '../protocol/control-api.schema.ts';
import { DEVICE_WS_PATH } from '../protocol/device-frames.schema.ts';
import type { WorldSnapshot } from '../protocol/snapshot.schema.ts';
import stubApp from './app.ts';
import type { LocalBadges } from './live-feed.ts';
import { DEFAULT_SETTINGS, type HttpTimeouts, type StubSettingsInput } from './settings.ts';
import { StubCore } from './stub-core.ts';
import { stubServer } from './stub-server.ts';
import type { PreparedTls, StubTlsInfo, StubTlsOptions } from './tls.ts';
import type { TraceWriter } from './trace-file.ts';

/**
 * Runs the badges of `badges` on a started stub (the simulator's `runStubBadges`, given by the
 * package's entry point and the CLI: the server itself never loads the simulator). The stub lets
 * its dashboard switch them on and off.
 */
export type StubBadgeRunner = (
  stub: StubHandle,
  which: string,
  /** The `badges` of the snapshot the stub started from: those it holds carry on (WS24). */
  snapshot?: unknown,
) => Promise<LocalBadges & { close(): Promise<void> }>;

export interface StartStubOptions {
  /** Loopback by default: a stub is a test tool, not a public server. */
  host?: string;
  /** 0 (the default) picks a free port. */
  port?: number;
  /** A fixture document, or the path of a YAML/JSON file; the default fixtures otherwise. */
  fixtures?: Fixtures | string;
  /**
   * Seed of task and event ids and issued tokens: the same seed gives the same ids, run after
   * run and after each reset (K1). Without one (the default) they are random: new in each
   * process and after each reset, in every clock mode.
   */
  seed?: number;
  /** `virtual` (default: time moves only when told), `real`, or `scaled` by `clockScale`. */
  clock?: ClockMode;
  clockScale?: number;
  /** Start of virtual time (ms since epoch). */
  startTime?: number;
  /** Record the session from the start (`GET /_stub/recording`; `--record FILE` sets it). */
  record?: boolean;
  /** Records the session recording (`/_stub/recording`, `--record`) keeps at most (RS2). */
  recordingLimit?: number;
  /**
   * Write a trace of the whole session to this file (gzip JSON lines, `badge-sim-trace/1`,
   * TR1): the recording's records, each alert's changes among them; closed with the stub.
   */
  trace?: string;
  settings?: StubSettingsInput;
  /**
   * Locks the control API: every `/_stub` route but `GET /_stub/health` then wants this token
   * in the `X-Badge-Sim-Control-Token` header (401 without). Open when not given.
   */
  controlToken?: string;
  /**
   * Transport timeouts of the HTTP server in ms, each optional (defaults: headers 10 s,
   * request 30 s, keep-alive 5 s, stalled answer 30 s). Shown by `GET /_stub/settings`. No
   * timeout runs while a handler works out its answer (a slow badge holding an advance): an
   * idle timeout of the socket would cut it (I9).
   */
  timeouts?: Partial<HttpTimeouts>;
  /**
   * HTTPS only on the port (and `wss://` for badges): `true` issues a certificate for the
   * stub's host names and addresses from a new local CA; or give `cert`/`key` (and `ca`), or
   * `dir` to keep the CA across restarts (docs/decisions.md N1–N9). The handle's `tls` gives
   * the CA to trust. A setup that cannot work throws a TlsSetupError naming the field.
   */
  tls?: true | StubTlsOptions;
  /**
   * Run virtual badges in this process, connected to this stub: `'all'` the fixtures' devices,
   * or the name of a group (in any account). The dashboard shows their real state and can take
   * them offline and back (`/_stub/devices/{id}/offline`, `/online`). Badges of devices that
   * later fixtures add are not started (UI5).
   */
  badges?: string;
  /**
   * Start from a world snapshot (`GET /_stub/snapshot`): the document, or the path of its JSON
   * file. Its fixtures, clock, ids and everything else replace the options' (WS18).
   */
  snapshot?: WorldSnapshot | string;
  /** Called after each response, for a request log (never given headers or bodies). */
  onResponse?: (line: { method: string; url: string; status: number; ms: number }) => void;
}

/** A running stub: its URLs, and `await using` to stop it. */
export interface StubHandle extends AsyncDisposable {
  /** Base URL of the notification interface: `{url}/subscribers/{id}/api/v1/…` (`https://` with TLS). */
  readonly url: string;
  /** Base URL of the control API. */
  readonly controlUrl: string;
  readonly openapiUrl: string;
  readonly port: number;
  /**
   * Everything the stub knows, without HTTP: for badge-sim's own fleet and scenario runner.
   * @internal not in the published declarations (decision Q9): users drive a stub through its
   * URLs, the control client and the fleet.
   */
  readonly core: StubCore;
  readonly app: FastifyInstance;
  /** WebSocket URL where virtual badges connect (`wss://` with TLS). */
  readonly devicesUrl: string;
  /** With TLS: the CA clients trust (PEM and a file), the certificate's names; else undefined. */
  readonly tls: StubTlsInfo | undefined;
  /** Whether the control API wants a token (the token itself is not kept here). */
  readonly controlLocked: boolean;
  close(): Promise<void>;
}

/** The HTTP timeouts with defaults filled in; each a whole number of ms ≥ 1, headers ≤ request. */
function httpTimeouts(given: Partial<HttpTimeouts>): HttpTimeouts {
  for (const name of Object.keys(given)) {
    if (!Object.hasOwn(DEFAULT_SETTINGS.httpTimeouts, name)) {
      throw new RangeError(
        `badge-sim: timeouts.${name} is not a setting (there are ${Object.keys(DEFAULT_SETTINGS.httpTimeouts).join(', ')}; no idle timeout cuts an answer in flight, I9)`,
      );
    }
  }
  const timeouts = { ...DEFAULT_SETTINGS.httpTimeouts, ...given };
  for (const [name, ms] of Object.entries(timeouts)) {
    if (!Number.isInteger(ms) || ms < 1 || ms > 3_600_000) {
      throw new RangeError(
        `badge-sim: timeouts.${name} must be whole ms from 1 to 3600000, got ${ms}`,
      );
    }
  }
  if (timeouts.headersMs > timeouts.requestMs) {
    throw new RangeError('badge-sim: timeouts.headersMs must not exceed timeouts.requestMs');
  }
  return timeouts;
}

/**
 * Starts a stub listening on a real port; `runBadges` runs the badges of `options.badges`
 * (the package's entry point gives the simulator's).
 */
export async function startStub(
  options: StartStubOptions = {},
  runBadges?: StubBadgeRunner,
): Promise<StubHandle> {
  checkStartOptions(options);
  const fixtures =
    typeof options.fixtures === 'object'
      ? options.fixtures
      : loadFixturesFile(options.fixtures ?? DEFAULT_FIXTURES_FILE);
  const timeouts = httpTimeouts({ ...options.settings?.httpTimeouts, ...options.timeouts });
  const listenHost = options.host ?? '127.0.0.1';
  // Before anything runs: a certificate that cannot work leaves nothing behind. The TLS code
  // (and node-forge, which issues certificates) is loaded only for a stub that serves TLS.
  const tlsSetup = options.tls ? await import('./tls.ts') : undefined;
  const tls: PreparedTls | undefined = options.tls
    ? tlsSetup!.prepareTls(options.tls, listenHost)
    : undefined;
  let core: StubCore;
  let trace: TraceWriter | undefined;
  let restored: WorldSnapshot | undefined;
  try {
    ({ core, trace, restored } = await newCore(options, fixtures, timeouts));
  } catch (error) {
    tls?.dispose();
    throw error;
  }
  const app = stubServer(timeouts, core.settings.bodyLimit, tls, tlsSetup);
  await app.register(stubApp, { core, controlToken: options.controlToken });
  if (options.onResponse) {
    const log = options.onResponse;
    app.addHook('onResponse', async (request, reply) => {
      log({
        method: request.method,
        url: request.url,
        status: reply.statusCode,
        ms: reply.elapsedTime,
      });
    });
  }
  // A deep accept queue: a fleet of thousands connects at once (Node's default is 511).
  try {
    await app.listen({ host: listenHost, port: options.port ?? 0, backlog: 8192 });
  } catch (error) {
    // A host that does not resolve, a port in use: nothing of this stub is left running.
    core.clock.dispose();
    await app.close().catch(() => undefined);
    await trace?.close();
    tls?.dispose();
    throw error;
  }
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : (options.port ?? 0);
  const host =
    options.host && options.host !== '0.0.0.0' && options.host !== '::'
      ? options.host
      : '127.0.0.1';
  const url = `${tls ? 'https' : 'http'}://${host.includes(':') ? `[${host}]` : host}:${port}`;
  let closed: Promise<void> | undefined;
  let fleet: { close(): Promise<void> } | undefined;
  const close = () => {
    closed ??= (async () => {
      await fleet?.close();
      core.clock.dispose();
      await app.close();
      core.recorder.end();
      await trace?.close();
      tls?.dispose();
    })();
    return closed;
  };
  const handle: StubHandle = {
    url,
    controlUrl: `${url}${CONTROL_PREFIX}`,
    openapiUrl: `${url}${CONTROL_PREFIX}/openapi.json`,
    devicesUrl: `${url.replace(/^http/, 'ws')}${DEVICE_WS_PATH}`,
    port,
    core,
    app,
    controlLocked: options.controlToken !== undefined,
    tls: tls?.info,
    close,
    [Symbol.asyncDispose]: close,
  };
  if (options.badges !== undefined)
    fleet = await startBadges(handle, [options.badges, restored?.badges], runBadges, close);
  return handle;
}

/**
 * The stub's core, from a snapshot if given, and its trace if asked for (loaded only then; a
 * file that cannot be written throws here, before anything listens).
 */
async function newCore(
  options: StartStubOptions,
  fixtures: Fixtures,
  timeouts: HttpTimeouts,
): Promise<{ core: StubCore; trace: TraceWriter | undefined; restored?: WorldSnapshot }> {
  let restored: WorldSnapshot | undefined;
  const core = new StubCore({
    fixtures,
    seed: options.seed,
    settings: { ...options.settings, httpTimeouts: timeouts },
    clockMode: options.clock,
    clockScale: options.clockScale,
    startTime: options.startTime,
    record: options.record,
    recordingLimit: options.recordingLimit,
  });
  if (options.snapshot !== undefined) {
    // Loaded only by a stub that starts from a snapshot.
    const { restoreGivenSnapshot } = await import('./snapshot/snapshot-file.ts');
    restored = restoreGivenSnapshot(core, options.snapshot);
  }
  const trace =
    options.trace === undefined
      ? undefined
      : (await import('./trace-file.ts')).startTrace(core, options.trace, { source: 'stub' });
  return { core, trace, restored };
}

/** The options `startStub` refuses before anything starts. */
function checkStartOptions(options: StartStubOptions): void {
  if (options.controlToken !== undefined) {
    const problem = controlTokenProblem(options.controlToken);
    if (problem) throw new TypeError(`badge-sim: controlToken ${problem}`);
  }
  // The bounds of PUT /_stub/clock and of `badge-sim stub --scale` (I16).
  const scale = options.clockScale;
  if (scale !== undefined && !(scale >= CLOCK_SCALE_MIN && scale <= CLOCK_SCALE_MAX)) {
    throw new RangeError(
      `badge-sim: clockScale must be from ${CLOCK_SCALE_MIN} to ${CLOCK_SCALE_MAX}, got ${scale}`,
    );
  }
}

/**
 * The badges of `startStub({ badges })`, run by `runBadges` and shown on the dashboard; if
 * they cannot start, the stub is closed and the error thrown.
 */
async function startBadges(
  handle: StubHandle,
  [which, snapshot]: [string, unknown],
  runBadges: StubBadgeRunner | undefined,
  close: () => Promise<void>,
): Promise<{ close(): Promise<void> }> {
  try {
    if (!runBadges)
      throw new Error(
        "badge-sim: startStub's `badges` runs the simulator: import startStub from 'badge-sim', not from its server module",
      );
    const badges = await runBadges(handle, which, snapshot);
    handle.app.feed.localBadges = badges;
    return badges;
  } catch (error) {
    await close();
    throw error;
  }
}
