/**
 * A testcontainers module for the badge-sim image: build the settings fluently, `start()`,
 * and use the started handle's URLs and control client; `await using` stops it.
 *
 *   await using stub = await new BadgeSimContainer('badge-sim:latest').withSeed(7).start();
 *   const events = await fetch(`${stub.serviceUrl('100001')}/events`, …);
 *   await stub.control.advance('30s');
 *
 * It waits for the stub's health endpoint, not for a fixed time, and fails at once, with the
 * stub's own message, if the stub exits instead. The port is published on loopback only, and
 * the control API is locked with a random control token (`withControlToken` to choose it),
 * which the handle's `control` client sends and `controlToken` gives to other clients.
 * `withTls()` serves HTTPS only: the handle's URLs are `https://`/`wss://` and `caPem` is the
 * CA to trust (its `control` client already does).
 */
import { randomBytes } from 'node:crypto';
import {
  AbstractStartedContainer,
  GenericContainer,
  getContainerRuntimeClient,
  type StartedTestContainer,
  Wait,
} from 'testcontainers';
import { StubControlClient } from '../client/control-client.ts';
import type { CaPem } from '../client/trust.ts';
import type { Fixtures } from '../fixtures/fixtures.schema.ts';
import { checkFixtures, FixtureError, loadFixturesFile } from '../fixtures/load-fixtures.ts';
import {
  CancelEvents,
  CONTROL_PREFIX,
  controlTokenProblem,
  ENVIRONMENTS,
  type EnvironmentName,
  type StubSettings,
} from '../protocol/control-api.schema.ts';
import { DEVICE_WS_PATH } from '../protocol/device-frames.schema.ts';
import { CLIENT_ID_PATTERN } from '../protocol/token-api.schema.ts';
import { HttpStubConnection } from '../stub-connection/http-stub-connection.ts';
import type { StubConnection } from '../stub-connection/stub-connection.ts';

export type * from './public-types.ts';

/** The port the stub listens on inside the container (the image's BADGE_SIM_PORT). */
export const CONTAINER_PORT = 8080;
/** The image name the README's `docker build -t` uses. */
export const DEFAULT_BADGE_SIM_IMAGE = 'badge-sim:latest';
const FIXTURES_IN_CONTAINER = '/tmp/badge-sim.fixtures.json';
/** Where the stub keeps its CA in the container (`BADGE_SIM_TLS_DIR`), for the handle to read. */
const TLS_DIR_IN_CONTAINER = '/tmp/badge-sim-tls';
/** A host name or an IP address (what a certificate can be issued for). */
const TLS_NAME = /^[A-Za-z0-9_.:*-]{1,253}$/;
/** An HTTP auth scheme is a token (RFC 9110); a brand or URN word goes into URNs and a path. */
const AUTH_SCHEME = /^[A-Za-z][A-Za-z0-9!#$%&'*+.^_`|~-]*$/;
const BRAND_WORD = /^[A-Za-z0-9_-]+$/;
const CLIENT_ID = new RegExp(CLIENT_ID_PATTERN);

export type ContainerClockMode = 'virtual' | 'real' | 'scaled';

export class BadgeSimContainer extends GenericContainer {
  #fixturesGiven = false;
  #generateGiven = false;
  /** Random unless chosen: whoever reaches the port cannot read the fixtures' secrets. */
  #controlToken = randomBytes(24).toString('base64url');
  /** With TLS: the names asked for besides those the stub and `start()` add. */
  #tlsNames: string[] | undefined;

  constructor(image = DEFAULT_BADGE_SIM_IMAGE) {
    super(image);
    this.withExposedPorts(CONTAINER_PORT)
      // A container for tests: time moves only when the tests move it (like startStub()).
      .withEnvironment({ BADGE_SIM_CLOCK: 'virtual', BADGE_SIM_CONTROL_TOKEN: this.#controlToken })
      .withWaitStrategy(healthWait(false))
      .withStartupTimeout(60_000);
    // Publish on loopback only: a stub for tests is nobody else's business.
    this.hostConfig.PortBindings = {
      [`${CONTAINER_PORT}/tcp`]: [{ HostIp: '127.0.0.1', HostPort: '0' }],
    };
  }

  /**
   * Fixtures: a file (YAML or JSON) on this machine, or the document itself. They are checked
   * here, so a mistake is a FixtureError naming the field now, not a container that exits.
   */
  withFixtures(fixtures: string | Fixtures): this {
    if (this.#generateGiven) refuse('give either withFixtures or withGeneratedFixtures, not both');
    let checked: Fixtures;
    try {
      checked =
        typeof fixtures === 'string'
          ? loadFixturesFile(fixtures)
          : checkFixtures(structuredClone(fixtures));
    } catch (error) {
      if (error instanceof FixtureError)
        throw new FixtureError(
          `badge-sim: withFixtures: ${error.message.replace(/^badge-sim: /, '')}`,
          error.path,
        );
      throw error;
    }
    this.#fixturesGiven = true;
    return this.withCopyContentToContainer([
      { content: JSON.stringify(checked), target: FIXTURES_IN_CONTAINER, mode: 0o644 },
    ]).withEnvironment({ BADGE_SIM_FIXTURES: FIXTURES_IN_CONTAINER });
  }

  /** Faker-generated fixtures: one account with this many devices (from the seed). */
  withGeneratedFixtures(devices: number): this {
    if (this.#fixturesGiven) refuse('give either withFixtures or withGeneratedFixtures, not both');
    wholeNumber('withGeneratedFixtures', devices, 0, 100_000);
    this.#generateGiven = true;
    return this.withEnvironment({ BADGE_SIM_GENERATE: String(devices) });
  }

  /**
   * Seed of task and event ids and of tokens (and of generated fixtures): the same ids run
   * after run and after each reset. Without it they are random, new in each container.
   */
  withSeed(seed: number): this {
    wholeNumber('withSeed', seed, 0, Number.MAX_SAFE_INTEGER);
    return this.withEnvironment({ BADGE_SIM_SEED: String(seed) });
  }

  /** `virtual` (the default here), `real`, or `scaled` with a factor. */
  withClock(mode: ContainerClockMode, scale?: number): this {
    oneOf('withClock', mode, ['virtual', 'real', 'scaled']);
    if (mode === 'scaled' && !(typeof scale === 'number' && scale > 0))
      refuse("withClock('scaled', factor): give a positive factor, e.g. 60");
    if (mode !== 'scaled' && scale !== undefined)
      refuse(`withClock: a factor is for 'scaled' time, not '${mode}'`);
    return this.withEnvironment({
      BADGE_SIM_CLOCK: mode,
      ...(scale === undefined ? {} : { BADGE_SIM_SCALE: String(scale) }),
    });
  }

  /** The scheme word of `Authorization: <scheme> <API_KEY>`. */
  withAuthScheme(word: string): this {
    if (!AUTH_SCHEME.test(word))
      refuse(`withAuthScheme: give one word such as ServiceApiKey (not '${word}')`);
    return this.withEnvironment({ BADGE_SIM_AUTH_SCHEME: word });
  }

  /** The brand word of the device path, and of group URNs unless `withUrnWord` sets theirs. */
  withBrandWord(word: string): this {
    if (!BRAND_WORD.test(word))
      refuse(`withBrandWord: give letters, digits, - or _ such as service (not '${word}')`);
    return this.withEnvironment({ BADGE_SIM_BRAND_WORD: word });
  }

  /** The word of group URNs (`urn:<word>-resource:…`) when it is not the brand word. */
  withUrnWord(word: string): this {
    if (!BRAND_WORD.test(word))
      refuse(`withUrnWord: give letters, digits, - or _ such as service (not '${word}')`);
    return this.withEnvironment({ BADGE_SIM_URN_WORD: word });
  }

  /**
   * A client id the environment's token endpoint accepts: its command-line tool's (`cli`) or
   * its SDK's (`sdk`), for clients with the original's built in. Wins over the fixtures'.
   */
  withClientId(environment: EnvironmentName, kind: 'cli' | 'sdk', id: string): this {
    oneOf('withClientId', environment, [...ENVIRONMENTS]);
    oneOf('withClientId', kind, ['cli', 'sdk']);
    if (typeof id !== 'string' || !CLIENT_ID.test(id))
      refuse('withClientId: give 1 to 128 visible ASCII characters, no spaces');
    return this.withEnvironment({
      [`BADGE_SIM_${environment.toUpperCase()}_${kind.toUpperCase()}_CLIENT_ID`]: id,
    });
  }

  /** A client id no environment knows: `refuse` (401 invalid_client, the default) or `accept`. */
  withUnknownClientIds(policy: StubSettings['unknownClientIds']): this {
    oneOf('withUnknownClientIds', policy, ['refuse', 'accept']);
    return this.withEnvironment({ BADGE_SIM_UNKNOWN_CLIENT_IDS: policy });
  }

  withUnknownFields(policy: StubSettings['unknownFields']): this {
    oneOf('withUnknownFields', policy, ['reject', 'ignore']);
    return this.withEnvironment({ BADGE_SIM_UNKNOWN_FIELDS: policy });
  }

  withCancelEvents(kind: CancelEvents): this {
    oneOf(
      'withCancelEvents',
      kind,
      CancelEvents.anyOf.map((literal) => literal.const),
    );
    return this.withEnvironment({ BADGE_SIM_CANCEL_EVENTS: kind });
  }

  /**
   * The control token (random by default): every `/_stub` call but health must send it in
   * the `X-Badge-Sim-Control-Token` header. The handle's `control` client does; give
   * `stub.controlToken` to other clients (`--control-token`, `controlToken`).
   */
  withControlToken(token: string): this {
    const problem = typeof token === 'string' ? controlTokenProblem(token) : 'is not a string';
    if (problem) refuse(`withControlToken: the token ${problem}`);
    this.#controlToken = token;
    return this.withEnvironment({ BADGE_SIM_CONTROL_TOKEN: token });
  }

  /**
   * HTTPS only (and `wss://` for badges): the stub issues its certificate at start from a CA
   * of its own, for localhost, the loopback addresses, the container's host name and
   * addresses, the host this machine reaches it by, its network aliases and `names`. The
   * started handle's `caPem` is that CA; its `control` client trusts it.
   */
  withTls(options: { names?: string[] } = {}): this {
    for (const name of options.names ?? [])
      if (typeof name !== 'string' || !TLS_NAME.test(name))
        refuse(`withTls: names are host names or IP addresses (not '${String(name)}')`);
    this.#tlsNames = [...(options.names ?? [])];
    return this.withEnvironment({
      BADGE_SIM_TLS: 'true',
      BADGE_SIM_TLS_DIR: TLS_DIR_IN_CONTAINER,
    }).withWaitStrategy(healthWait(true));
  }

  /** No line per request in the container's log. */
  withQuietLog(): this {
    return this.withEnvironment({ BADGE_SIM_QUIET: 'true' });
  }

  override async start(): Promise<StartedBadgeSimContainer> {
    if (this.#tlsNames) {
      // The certificate must name the host this machine reaches the container by (localhost,
      // or a remote engine's address) and the aliases other containers use.
      const runtimeHost = (await getContainerRuntimeClient()).info.containerRuntime.host;
      const names = [runtimeHost, ...this.networkAliases, ...this.#tlsNames].filter((name) =>
        TLS_NAME.test(name),
      );
      this.withEnvironment({ BADGE_SIM_TLS_NAMES: [...new Set(names)].join(',') });
    }
    return this.handle(await super.start());
  }

  /** The handle of a started container: its URL, its CA with TLS, and a control client with the token. */
  protected async handle(started: StartedTestContainer): Promise<StartedBadgeSimContainer> {
    const scheme = this.#tlsNames ? 'https' : 'http';
    const url = `${scheme}://${started.getHost()}:${started.getMappedPort(CONTAINER_PORT)}`;
    const caPem = this.#tlsNames ? await readCa(started) : undefined;
    const controlToken = this.#controlToken;
    const control = new StubControlClient(url, { controlToken, ca: caPem });
    const settings = await control.settings();
    return new StartedBadgeSimContainer(started, url, control, settings, controlToken, caPem);
  }
}

export class StartedBadgeSimContainer extends AbstractStartedContainer {
  constructor(
    started: StartedTestContainer,
    /** The stub's base URL on this machine: `{base_url}`, and `{api_host}`/`{auth_url}` of pro. */
    readonly url: string,
    /** A client of the control API, ready to use. */
    readonly control: StubControlClient,
    /** The settings the stub runs with (auth scheme, brand word, environments, …). */
    readonly settings: StubSettings,
    /**
     * The control token of its control API (header `X-Badge-Sim-Control-Token`), for other
     * clients: `new StubControlClient(url, { controlToken })`, `--control-token`. A secret.
     */
    readonly controlToken: string,
    /**
     * With `withTls()`: PEM of the CA clients trust (`ca` of badge-sim's clients and
     * `startFleet`; write it to a file for `NODE_EXTRA_CA_CERTS`). Undefined without TLS.
     */
    readonly caPem: CaPem | undefined = undefined,
  ) {
    super(started);
  }

  /**
   * The connection runner and fleet use (over `control`, so with its token and CA):
   * `startFleet({ stub: container.connection() })`.
   */
  connection(): StubConnection {
    return new HttpStubConnection(this.url, this.control, { ca: this.caPem });
  }

  /** `{base_url}/subscribers/{id}/api/v1`. */
  serviceUrl(subscriberId: string): string {
    return `${this.url}/subscribers/${encodeURIComponent(subscriberId)}/api/v1`;
  }

  /** `{api_host}` of an environment; the token endpoint is at the same place (`{auth_url}`). */
  apiHost(environment: EnvironmentName = 'pro'): string {
    return `${this.url}${this.settings.environments[environment].prefix}`;
  }

  get controlUrl(): string {
    return `${this.url}${CONTROL_PREFIX}`;
  }

  get openapiUrl(): string {
    return `${this.url}${CONTROL_PREFIX}/openapi.json`;
  }

  /** Where virtual badges connect (what `startFleet({ stub: url })` uses); `wss://` with TLS. */
  get devicesUrl(): string {
    return `${this.url.replace(/^http/, 'ws')}${DEVICE_WS_PATH}`;
  }
}

/** Ready when the health endpoint answers 200; with TLS over HTTPS, any certificate (it only asks whether the stub is up). */
function healthWait(tls: boolean) {
  const wait = Wait.forHttp(`${CONTROL_PREFIX}/health`, CONTAINER_PORT, {
    abortOnContainerExit: true,
  }).forStatusCode(200);
  return tls ? wait.usingTls().allowInsecure() : wait;
}

/** The CA the stub made in the container (its public certificate only). */
async function readCa(started: StartedTestContainer): Promise<CaPem> {
  const file = `${TLS_DIR_IN_CONTAINER}/ca.pem`;
  const read = await started.exec([
    'node',
    '-e',
    `process.stdout.write(require('node:fs').readFileSync('${file}', 'utf8'))`,
  ]);
  if (read.exitCode !== 0 || !read.stdout.startsWith('-----BEGIN CERTIFICATE-----'))
    throw new Error(
      `badge-sim: withTls: cannot read ${file} in the container (${read.stderr.trim() || `exit ${read.exitCode}`})`,
    );
  return read.stdout;
}

function refuse(message: string): never {
  throw new TypeError(`badge-sim: ${message}`);
}

function wholeNumber(what: string, value: number, min: number, max: number): void {
  if (!Number.isInteger(value) || value < min || value > max)
    refuse(`${what}: give a whole number from ${min} to ${max} (not ${value})`);
}

function oneOf(what: string, value: string, allowed: string[]): void {
  if (!allowed.includes(value))
    refuse(`${what}: give one of ${allowed.join(', ')} (not '${value}')`);
}
