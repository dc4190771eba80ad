import { CLOSE_CODES } from '../protocol/device-frames.schema.ts';
import type { BadgeOptions, BadgeState } from './badge-types.ts';
import { Backoff, DEFAULT_RECONNECT } from './transport.ts';

/** Hellos refused because another fleet holds the device (4010) before a badge gives up. */
const CLAIMED_TRIES = 5;

/** What a fleet's snapshot keeps of it (decision FS2). */
type ReconnectRecord = Omit<BadgeState['link'], 'user'>;

/**
 * Whether a badge wants to be online, and its reconnecting after a close it did not ask for:
 * with backoff, on real time, until welcomed again, told to stay offline, or given up.
 */
export class BadgeReconnect {
  /** Offline on purpose (a behaviour, or a refusal): do not reconnect on our own. */
  #wantOnline = false;
  #offlineOnPurpose = false;
  /** Real time, not the domain clock: a stub that is down has no clock to wait on. */
  #timer: NodeJS.Timeout | undefined;
  readonly #backoff: Backoff | undefined;
  /** When (performance.now) the link was lost unexpectedly; undefined while not reconnecting. */
  #downSince: number | undefined;
  /** The close code that made the badge give up (4001 refused, 4003 replaced). */
  #gaveUpOn: number | undefined;
  #reconnects = 0;
  /** Hellos refused in a row because another fleet held the device (4010). */
  #claimedTries = 0;
  /** Connects again, when the badge is still offline once the backoff is over. */
  readonly #retry: () => void;

  constructor(options: BadgeOptions['reconnect'], retry: () => void) {
    if (options !== false) {
      const { random, ...given } = options ?? {};
      this.#backoff = new Backoff({ ...DEFAULT_RECONNECT, ...given }, random);
    }
    this.#retry = retry;
  }

  /** Sent offline (`goOffline`, `vanish`) and not told to connect since. */
  get offlineOnPurpose(): boolean {
    return this.#offlineOnPurpose;
  }

  /** Trying again with backoff after an unexpected close or a failed connect. */
  get reconnecting(): boolean {
    return this.#downSince !== undefined;
  }

  /** How long (real ms) it has been trying to reconnect; 0 when it is not. */
  get downForMs(): number {
    return this.#downSince === undefined ? 0 : performance.now() - this.#downSince;
  }

  /** Times it was welcomed after an unexpected close or a failed connect. */
  get reconnects(): number {
    return this.#reconnects;
  }

  /** The close code that made it stop trying; undefined otherwise. */
  get gaveUpOn(): number | undefined {
    return this.#gaveUpOn;
  }

  /** Told to connect: it wants to be online, and tries again after a give-up. */
  connectAsked(): void {
    this.#wantOnline = true;
    this.#offlineOnPurpose = false;
    this.#gaveUpOn = undefined;
  }

  /** Sent offline on purpose (`goOffline`, `vanish`): no reconnect timer is left to fire. */
  offlineAsked(): void {
    this.stop();
    this.#offlineOnPurpose = true;
  }

  /** Offline on purpose from now: no reconnect timer is left to fire. */
  stop(): void {
    this.#wantOnline = false;
    this.#downSince = undefined;
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  /** A welcome came: the device is no longer held by another fleet. */
  claimAccepted(): void {
    this.#claimedTries = 0;
  }

  /** Welcomed (and the stub's clock taken): a reconnect that succeeded counts. */
  welcomed(): void {
    if (this.#downSince !== undefined) this.#reconnects++;
    this.#downSince = undefined;
    this.#backoff?.reset();
  }

  /**
   * The link closed without the badge asking. Every close reconnects with backoff except a
   * refused hello (4001: the same hello would be refused again, forever) and a replaced
   * connection (4003: another connection holds the device; taking it back would make the two
   * replace each other in a loop).
   */
  closed(code: number): void {
    // Another fleet holds the device: it may be leaving (a test's fleet closing as the next
    // one starts), so a few tries on the backoff, then give up (decision D13).
    const claimedTooOften = code === CLOSE_CODES.claimed && ++this.#claimedTries > CLAIMED_TRIES;
    if (code === CLOSE_CODES.refused || code === CLOSE_CODES.replaced || claimedTooOften) {
      this.#gaveUpOn = code;
      this.stop();
      return;
    }
    if (!this.#wantOnline || !this.#backoff) {
      this.#downSince = undefined;
      return;
    }
    this.#downSince ??= performance.now();
    clearTimeout(this.#timer);
    // Real time on purpose: reconnecting is about the network, and a stub that is down has
    // no clock that could move a domain timer.
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      if (this.#wantOnline) this.#retry();
    }, this.#backoff.next());
  }

  save(): ReconnectRecord {
    return {
      wantOnline: this.#wantOnline,
      offlineOnPurpose: this.#offlineOnPurpose,
      gaveUpOn: this.#gaveUpOn ?? null,
      reconnects: this.#reconnects,
      claimedTries: this.#claimedTries,
    };
  }

  load(record: ReconnectRecord): void {
    this.#wantOnline = record.wantOnline;
    this.#offlineOnPurpose = record.offlineOnPurpose;
    this.#gaveUpOn = record.gaveUpOn ?? undefined;
    this.#reconnects = record.reconnects;
    this.#claimedTries = record.claimedTries;
  }
}
