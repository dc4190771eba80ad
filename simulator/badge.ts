import type { TimerId } from '../clock/clock.ts';
import type { TapRule } from '../fixtures/fixtures.schema.ts';
import type { BadgeStatus, BatteryStatus, Location } from '../protocol/device-frames.schema.ts';
import type { BadgeEmitted, BadgeIo } from './badge.machine.ts';
import { BadgeConnection } from './badge-connection.ts';
import { BadgeRecords } from './badge-records.ts';
import { BadgeRunner, EmittedListeners } from './badge-runner.ts';
import { BadgeTaps } from './badge-taps.ts';
import {
  type BadgeActivity,
  type BadgeNews,
  type BadgeOptions,
  type BadgeState,
  type HeardEntry,
  type PendingClock,
  type SavedTimer,
  statusOf,
  type TapCounts,
} from './badge-types.ts';
import { checkMs, checkTapFate, type TapFate } from './device-faults.ts';
import type { KeptClip } from './heard-clip.ts';

export { ACTIVITY_CAP, HEARD_CAP } from './badge-records.ts';
export { TAPS_IN_FLIGHT_CAP } from './badge-taps.ts';
export type {
  BadgeActivity,
  BadgeNews,
  BadgeOptions,
  HeardEntry,
  TapCounts,
} from './badge-types.ts';
export type { BadgeStatus };

export class Badge {
  readonly deviceId: string;
  /** Clips heard, taps and network changes, errors: each kept raw, capped and counted. */
  readonly #records: BadgeRecords;
  /** Errors the stub sent this badge (refused hello, unknown task, …), newest last, at most 100. */
  readonly errors: { code: string; message: string }[] = [];
  /** The badge machine, as a snapshot its runner advances (no actor per badge: decision SC4). */
  readonly #machine: BadgeRunner;
  /** Who listens to what the machine emits (`on`); made when the first one subscribes. */
  #listeners: EmittedListeners<BadgeNews> | undefined;
  readonly #options: BadgeOptions;
  /** Its link to the stub: hello, frames, welcome, state reports, closes and reconnecting. */
  readonly #connection: BadgeConnection;
  #status: BadgeStatus = 'offline';
  /** The timer of the clip playing (the machine's `startClipTimer`), on the domain clock. */
  #clipTimer: TimerId | undefined;
  /** Taps on their way: fates, button frames waiting to leave, what became of them. */
  readonly #taps: BadgeTaps;
  /** The timer that brings the badge back after `drop`. */
  #dropTimer: TimerId | undefined;

  /** @internal badges are made by `startFleet`, which builds their link to the stub. */
  constructor(options: BadgeOptions) {
    this.deviceId = options.deviceId;
    this.#options = options;
    this.#records = new BadgeRecords(options.keep, this.errors);
    this.#taps = new BadgeTaps(options.clock, (taskId) =>
      this.#connection.link.send({ type: 'button', taps: 'single', task_id: taskId }),
    );
    this.#connection = new BadgeConnection(options, {
      taps: this.#taps,
      records: this.#records,
      status: () => this.#status,
      tell: (news) => this.#listeners?.tell(news),
    });
    const link = this.#connection.link;
    const io: BadgeIo = {
      open: () => link.open(),
      close: () => link.close(),
      send: (frame) => this.#connection.send(frame),
      speakAloud: (text) => options.tts.speak?.(text),
      startClipTimer: (durationMs, ended) => {
        this.#clipTimer = options.clock.setTimer(durationMs, ended);
      },
      stopClipTimer: () => options.clock.clearTimer(this.#clipTimer),
    };
    this.#machine = new BadgeRunner(
      {
        deviceId: options.deviceId,
        io,
        batteryLevel: options.batteryLevel,
        location: options.location,
      },
      (event) => this.#emitted(event),
      options.inspect,
      options.resumed?.state.machine,
    );
    this.#connection.attach(this.#machine);
    if (options.resumed) this.#load(options.resumed.state, options.resumed.clips);
  }

  /**
   * @internal What a fleet's snapshot keeps of this badge (decision FS2). `clipIndex` numbers
   * the clips it heard in the snapshot's table: a clip many badges share is written once.
   */
  saveState(clipIndex: (clip: KeptClip) => number): BadgeState {
    const clock = this.#options.clock as PendingClock;
    const pending = (id: TimerId | undefined) => clock.pending?.(id) ?? null;
    const current = this.#machine.snapshot.context.current;
    const clip = current ? pending(this.#clipTimer) : null;
    return {
      deviceId: this.deviceId,
      machine: this.#machine.persisted(),
      clip: clip && { ...clip, elapsedMs: current!.durationMs - (clip.due - clock.now()) },
      ...this.#records.save(clipIndex),
      ...this.#taps.save(),
      dropBack: pending(this.#dropTimer),
      link: { ...this.#connection.reconnect.save(), user: this.#connection.user },
    };
  }

  /** A snapshot's records, counters and link state, into a badge made with its machine. */
  #load(state: BadgeState, clips: readonly KeptClip[]): void {
    this.#records.load(state, clips);
    this.#taps.load(state);
    this.#connection.reconnect.load(state.link);
    this.#connection.user = state.link.user;
    this.#status = statusOf(state.machine.value);
  }

  /**
   * @internal The timers a snapshot saved of this badge (clip, button frames, return from a
   * drop), each with the function that sets it again: the fleet sets every badge's in the
   * order they would have fired (decision FS4).
   */
  savedTimers(state: BadgeState): (SavedTimer & { arm(): void })[] {
    const clock = this.#options.clock;
    const inMs = (timer: SavedTimer) => timer.due - clock.now();
    const { clip, dropBack } = state;
    const clipEnds = () => this.#machine.send(CLIP_ENDED);
    return [
      ...(clip
        ? [{ ...clip, arm: () => (this.#clipTimer = clock.setTimer(inMs(clip), clipEnds)) }]
        : []),
      ...this.#taps.savedTimers(state),
      ...(dropBack
        ? [
            {
              ...dropBack,
              arm: () => (this.#dropTimer = clock.setTimer(inMs(dropBack), () => this.comeBack())),
            },
          ]
        : []),
    ];
  }

  /**
   * @internal A restored badge that was online (or connecting) opens a new link; its machine
   * stays where it was, and it counts as online again once welcomed (FS6; its hello names
   * `snapshotAt`, WS35).
   */
  resumeLink(snapshotAt?: number): void {
    this.#connection.resume(this.online, snapshotAt);
  }

  /** What the machine emitted: the badge's own records first, then whoever listens (`on`). */
  #emitted(event: BadgeEmitted): void {
    switch (event.type) {
      case 'stateChanged': {
        const wasOnline = this.online;
        this.#status = event.state;
        if (this.online !== wasOnline)
          this.#records.noteActivity(this.#options.clock.now(), this.online ? 'online' : 'offline');
        break;
      }
      case 'clipStarted':
        this.#records.clipStarted(this.#options.clock.now(), event.clip);
        break;
      case 'clipCut':
        this.#records.clipCut();
        break;
    }
    this.#listeners?.tell(event);
  }

  /**
   * @internal Calls back on what the badge's machine emits (a clip started or cut, a tap, a
   * change of state), after the badge has noted it; `unsubscribe` stops it.
   */
  on<T extends BadgeNews['type']>(
    type: T,
    listener: (event: Extract<BadgeNews, { type: T }>) => void,
  ): { unsubscribe(): void } {
    this.#listeners ??= new EmittedListeners<BadgeNews>();
    return this.#listeners.on(type, listener);
  }

  /**
   * What the badge heard, oldest first: one entry a clip, of the last 7 days and at most
   * HEARD_CAP (pruned as clips start; a new array on every read).
   */
  get transcript(): HeardEntry[] {
    return this.#records.transcript;
  }

  /** Taps and network changes, oldest first (a new array on every read). */
  get activity(): BadgeActivity[] {
    return this.#records.activity;
  }

  /**
   * What the badge keeps at most (`heard`: clips, `activity`: taps and network changes,
   * `errors`), and how many of each it has forgotten so far (past the cap or the 7 days).
   */
  get kept(): Record<'heard' | 'activity' | 'errors', { cap: number; dropped: number }> {
    return this.#records.kept;
  }

  /** Sent offline (`goOffline`, `vanish`) and not told to connect since. */
  get offlineOnPurpose(): boolean {
    return this.#connection.reconnect.offlineOnPurpose;
  }

  /** offline, connecting, idle, playing, awaiting-ack, speaking or broadcasting. */
  get status(): BadgeStatus {
    return this.#status;
  }

  get online(): boolean {
    const status = this.#status;
    return !this.#connection.resuming && status !== 'offline' && status !== 'connecting';
  }

  /**
   * Lost its connection unexpectedly (or could not make one) and is trying again with
   * backoff; false once welcomed again, or when offline on purpose.
   */
  get reconnecting(): boolean {
    return this.#connection.reconnect.reconnecting;
  }

  /** How long (real ms) the badge has been trying to reconnect; 0 when it is not. */
  get downForMs(): number {
    return this.#connection.reconnect.downForMs;
  }

  /** Times the badge was welcomed after an unexpected close or a failed connect. */
  get reconnects(): number {
    return this.#connection.reconnect.reconnects;
  }

  /**
   * The close code that made the badge stop trying (4001 hello refused, 4003 replaced by a
   * newer connection of the same device); undefined otherwise. Cleared by `connect()`.
   */
  get gaveUpOn(): number | undefined {
    return this.#connection.reconnect.gaveUpOn;
  }

  /** The user-profile name the stub greeted this badge with. */
  get user(): string | null {
    return this.#connection.user;
  }

  /** Alerts the badge has heard and the stub has not stopped. */
  get openAlerts(): string[] {
    return this.#machine.snapshot.context.open.map((a) => a.taskId);
  }

  connect(): void {
    this.#connection.reconnect.connectAsked();
    this.#machine.send({ type: 'CONNECT' });
  }

  /**
   * Taps the talk button: acknowledges the alert playing (or the one given). `fate` makes
   * this tap's button frame go wrong on the way (lost, delayed, duplicated), over any the
   * behaviour draws.
   */
  tap(taskId?: string, fate?: TapFate): void {
    if (fate) checkTapFate(fate);
    this.#records.noteActivity(this.#options.clock.now(), 'tap');
    this.#taps.given = fate;
    try {
      this.#machine.send({ type: 'TAP', taskId });
    } finally {
      this.#taps.given = undefined;
    }
  }

  /** What became of the badge's taps: made, frames sent and lost, delayed, duplicated. */
  get taps(): TapCounts {
    return { ...this.#taps.counts };
  }

  /** @internal `taps.control` without copying the counts (a fleet's tally reads it often). */
  get controlTaps(): number {
    return this.#taps.counts.control;
  }

  /**
   * @internal Adds this badge's tap faults to a fleet's tally without copying them: a worker
   * tallies its badges ten times a second, and a copy each would keep V8 from ever finding the
   * thread idle enough to hand memory back.
   */
  addTapFaultsTo(tally: Pick<TapCounts, 'lost' | 'delayed' | 'duplicated'>): void {
    const counts = this.#taps.counts;
    tally.lost += counts.lost;
    tally.delayed += counts.delayed;
    tally.duplicated += counts.duplicated;
  }

  /** Decides the fate of each tap by its number (1 the first); returns the function that stops it. */
  setTapFates(fateOf: (tap: number) => TapFate | undefined): () => void {
    return this.#taps.setFates(fateOf);
  }

  /** Which open alert a tap acknowledges from now on (decision D11; default `sounding`). */
  setTapRule(rule: TapRule): void {
    this.#machine.send({ type: 'TAP_RULE', rule });
  }

  /** The battery level the badge has now (and reports). */
  get batteryLevel(): number {
    return this.#machine.snapshot.context.batteryLevel;
  }

  /** The battery changes; reported to the stub at once when online. */
  setBattery(level: number, status?: BatteryStatus): void {
    this.#machine.send({ type: 'BATTERY', level, status });
  }

  /** The wearer moves; reported to the stub at once when online. */
  moveTo(location: Location): void {
    this.#machine.send({ type: 'LOCATION', location });
  }

  /** Drops off the network, as when a worker walks into a lift. */
  goOffline(): void {
    this.#options.clock.clearTimer(this.#dropTimer);
    this.#connection.reconnect.offlineAsked();
    this.#machine.send({ type: 'GO_OFFLINE' });
  }

  /**
   * The network vanishes without a close, as when a worker walks out of Wi-Fi range: the old
   * socket goes silent (it reads and answers nothing, the stub's pings included) but the stub
   * still holds it, half-open. The badge is offline until `comeBack()`, which connects on a
   * new socket and says hello for the same device: the stub replaces the silent connection
   * and replays what is open.
   */
  vanish(): void {
    const wasOnline = this.online;
    this.#connection.reconnect.offlineAsked();
    this.#connection.link.vanish();
    if (wasOnline) this.#options.onVanish?.();
    // Not GO_OFFLINE: that closes the link, and the point is that nothing is closed.
    this.#machine.send({ type: 'DISCONNECTED' });
  }

  comeBack(): void {
    this.#options.clock.clearTimer(this.#dropTimer);
    this.connect();
  }

  /**
   * Drops off the network and comes back after `forMs` of the badge's clock (a later drop
   * or `goOffline` replaces the return; `comeBack` brings it back sooner).
   */
  drop(forMs: number): void {
    checkMs('forMs', forMs);
    this.goOffline();
    this.#dropTimer = this.#options.clock.setTimer(forMs, () => this.comeBack());
  }

  /**
   * Asks the stub to send a `clock` frame at `at` (see FollowerClock); false when offline.
   * Frames name whole ms: a timer due between two is woken at the later one.
   */
  requestWake(at: number): boolean {
    return this.#connection.link.send({ type: 'wake', at: Math.ceil(at) });
  }

  /** Calls back when an alert starts playing on this badge (for behaviours and tests). */
  onAlertPlay(listener: (taskId: string, repeat: number) => void): () => void {
    const subscription = this.on('clipStarted', ({ clip }) => {
      if (clip.kind === 'alert') listener(clip.taskId, clip.repeat ?? 0);
    });
    return () => subscription.unsubscribe();
  }

  /** Stops for good: closes the link, stops the machine. */
  dispose(): void {
    this.#connection.telemetry.dispose();
    this.#connection.reconnect.stop();
    // Stopping the machine runs no exit action: the clip's timer is dropped here.
    this.#options.clock.clearTimer(this.#clipTimer);
    this.#options.clock.clearTimer(this.#dropTimer);
    this.#taps.dispose();
    this.#connection.link.close();
    this.#machine.stop();
  }
}

/** The one event a restored clip timer sends. */
const CLIP_ENDED = { type: 'CLIP_ENDED' } as const;
