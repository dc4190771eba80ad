/**
 * A testcontainers module for the badge-sim image: build the settings fluently, `start()`,
 * and use the started handle's URLs and control client; `await using` stops it.
 *
 *   await using stub = await new BadgeSimContainer('badge-sim:local').withSeed(7).start();
 *   const events = await fetch(`${stub.serviceUrl('100001')}/events`, …);
 *   await stub.control.advance('30s');
 *
 * It waits for the stub's health endpoint, not for a fixed time. The port is published on
 * the loopback interface only.
 */
import {
  AbstractStartedContainer,
  GenericContainer,
  type StartedTestContainer,
  Wait,
} from 'testcontainers';
import { StubControlClient } from '../client/control-client.ts';
import type { Fixtures } from '../fixtures/fixtures.schema.ts';
import { checkFixtures, loadFixturesFile } from '../fixtures/load-fixtures.ts';
import { CONTROL_PREFIX } from '../protocol/control-api.schema.ts';
import { DEVICE_WS_PATH } from '../protocol/device-frames.schema.ts';

/** The port the stub listens on inside the container. */
export const BADGE_SIM_PORT = 8080;
/** The image name the README's `docker build -t` uses. */
export const DEFAULT_BADGE_SIM_IMAGE = 'badge-sim:latest';
const FIXTURES_IN_CONTAINER = '/tmp/badge-sim.fixtures.json';

export type ContainerClockMode = 'virtual' | 'real' | 'scaled';

export class BadgeSimContainer extends GenericContainer {
  constructor(image = DEFAULT_BADGE_SIM_IMAGE) {
    super(image);
    this.withExposedPorts(BADGE_SIM_PORT)
      // A container for tests: time moves only when the tests move it (like startStub()).
      .withEnvironment({ BADGE_SIM_CLOCK: 'virtual' })
      .withWaitStrategy(Wait.forHttp(`${CONTROL_PREFIX}/health`, BADGE_SIM_PORT).forStatusCode(200))
      .withStartupTimeout(60_000);
    // Publish on loopback only: a stub for tests is nobody else's business.
    this.hostConfig.PortBindings = {
      [`${BADGE_SIM_PORT}/tcp`]: [{ HostIp: '127.0.0.1', HostPort: '0' }],
    };
  }

  /**
   * Fixtures: a file (YAML or JSON) on this machine, or the document itself. They are checked
   * here, so a mistake is a FixtureError naming the field now, not a container that never
   * becomes healthy.
   */
  withFixtures(fixtures: string | Fixtures): this {
    const checked =
      typeof fixtures === 'string'
        ? loadFixturesFile(fixtures)
        : checkFixtures(structuredClone(fixtures));
    return this.withCopyContentToContainer([
      { content: JSON.stringify(checked), target: FIXTURES_IN_CONTAINER, mode: 0o644 },
    ]).withEnvironment({ BADGE_SIM_FIXTURES: FIXTURES_IN_CONTAINER });
  }

  /** Faker-generated fixtures: one account with this many devices (from the seed). */
  withGeneratedFixtures(devices: number): this {
    wholeNumber('withGeneratedFixtures', devices, 0, 100_000);
    return this.withEnvironment({ BADGE_SIM_GENERATE: String(devices) });
  }

  /** Seed of generated fixtures and of task and event ids. */
  withSeed(seed: number): this {
    wholeNumber('withSeed', seed, 0, Number.MAX_SAFE_INTEGER);
    return this.withEnvironment({ BADGE_SIM_SEED: String(seed) });
  }

  /** `virtual` (the default here), `real`, or `scaled` with a factor. */
  withClock(mode: ContainerClockMode, scale?: number): this {
    if (!['virtual', 'real', 'scaled'].includes(mode))
      throw new TypeError(`withClock: mode must be virtual, real or scaled (not '${mode}')`);
    if (mode === 'scaled' && !(typeof scale === 'number' && scale > 0))
      throw new TypeError("withClock('scaled', factor): give a positive factor, e.g. 60");
    return this.withEnvironment({
      BADGE_SIM_CLOCK: mode,
      ...(scale === undefined ? {} : { BADGE_SIM_SCALE: String(scale) }),
    });
  }

  /** The scheme word of `Authorization: <scheme> <API_KEY>`. */
  withAuthScheme(word: string): this {
    return this.withEnvironment({ BADGE_SIM_AUTH_SCHEME: word });
  }

  /** The brand word of group URNs and the device path. */
  withBrandWord(word: string): this {
    return this.withEnvironment({ BADGE_SIM_BRAND_WORD: word });
  }

  withUnknownFields(policy: 'reject' | 'ignore'): this {
    return this.withEnvironment({ BADGE_SIM_UNKNOWN_FIELDS: policy });
  }

  withCancelEvents(kind: 'end-cancelled' | 'end-normal' | 'none'): this {
    return this.withEnvironment({ BADGE_SIM_CANCEL_EVENTS: kind });
  }

  /** No line per request in the container's log. */
  withQuietLog(): this {
    return this.withEnvironment({ BADGE_SIM_QUIET: 'true' });
  }

  override async start(): Promise<StartedBadgeSimContainer> {
    return new StartedBadgeSimContainer(await super.start());
  }
}

export class StartedBadgeSimContainer extends AbstractStartedContainer {
  /** The stub's base URL on this machine: `{base_url}`, and `{api_host}`/`{auth_url}` of pro. */
  readonly url: string;
  /** A client of the control API, ready to use. */
  readonly control: StubControlClient;

  constructor(started: StartedTestContainer) {
    super(started);
    this.url = `http://${started.getHost()}:${started.getMappedPort(BADGE_SIM_PORT)}`;
    this.control = new StubControlClient(this.url);
  }

  /** `{base_url}/subscribers/{id}/api/v1`. */
  serviceUrl(subscriberId: string): string {
    return `${this.url}/subscribers/${encodeURIComponent(subscriberId)}/api/v1`;
  }

  /** `{api_host}` of an environment; the token endpoint is at the same place (`{auth_url}`). */
  apiHost(environment: 'pro' | 'qa' = 'pro'): string {
    return environment === 'pro' ? this.url : `${this.url}/qa`;
  }

  get controlUrl(): string {
    return `${this.url}${CONTROL_PREFIX}`;
  }

  get openapiUrl(): string {
    return `${this.url}${CONTROL_PREFIX}/openapi.json`;
  }

  /** Where virtual badges connect (what `startFleet({ stub: url })` uses). */
  get devicesUrl(): string {
    return `${this.url.replace(/^http/, 'ws')}${DEVICE_WS_PATH}`;
  }
}

function wholeNumber(what: string, value: number, min: number, max: number): void {
  if (!Number.isInteger(value) || value < min || value > max)
    throw new TypeError(`${what}: give a whole number from ${min} to ${max} (not ${value})`);
}
