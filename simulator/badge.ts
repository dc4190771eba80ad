import { type Clock, formatTimestamp, type TimerId } from '../clock/clock.ts';
import {
  type BadgeStatus,
  type BatteryStatus,
  CLOSE_CODES,
  DEVICE_PROTOCOL_VERSION,
  type Location,
  type StubFrame,
} from '../protocol/device-frames.schema.ts';
import type { BadgeEmitted, BadgeIo, StateReport } from './badge.machine.ts';
import { BadgeRunner, EmittedListeners } from './badge-runner.ts';
import { BadgeTaps } from './badge-taps.ts';
import type {
  BadgeActivity,
  BadgeNews,
  BadgeOptions,
  BadgeState,
  HeardEntry,
  SavedTimer,
  TapCounts,
} from './badge-types.ts';

/** In real or scaled time, state reports go at most this often (real ms). */
const TELEMETRY_COALESCE_MS = 250;

import type { TapRule } from '../fixtures/fixtures.schema.ts';
import { checkMs, checkTapFate, type TapFate } from './device-faults.ts';
import { KeptLog } from './kept-log.ts';
import { type KeptClip, sharedClip } from './shared-clip.ts';
import { Backoff, type BadgeLink, DEFAULT_RECONNECT } from './transport.ts';

/**
 * What a badge remembers (its transcript): the clips of the last 7 days on its clock (the
 * stub's event window), at most HEARD_CAP of them (fewer in a large fleet: `keep`), the oldest
 * forgotten first and counted, so a fleet left running stays flat (docs/decisions.md H4).
 */
export const HEARD_CAP = 1_000;
/** The errors a badge keeps, newest last (decision H4). */
const ERRORS_CAP = 100;
/** Hellos refused because another fleet holds the device (4010) before a badge gives up. */
const CLAIMED_TRIES = 5;
const HEARD_RETENTION_MS = 7 * 24 * 3600 * 1000;

export const ACTIVITY_CAP = 1_000;

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
  /**
   * What the badge heard as it happened: the clip (shared with the badges that heard the same)
   * and the domain time it started. Kept raw and formatted only when read: a fan-out to 10,000
   * badges should not format 10,000 timestamps nobody may ask for.
   */
  readonly #heard: KeptLog<KeptClip>;
  /** Taps and network changes, raw like `#heard`, at most ACTIVITY_CAP. */
  readonly #activity: KeptLog<BadgeActivity['kind']>;
  /** Errors the stub sent this badge (refused hello, unknown task, …), newest last, at most ERRORS_CAP. */
  readonly errors: { code: string; message: string }[] = [];
  #errorsDropped = 0;
  /** The badge machine, as a snapshot its runner advances (no actor per badge: decision SC4). */
  readonly #machine: BadgeRunner;
  /** Who listens to what the machine emits (`on`); made when the first one subscribes. */
  #listeners: EmittedListeners<BadgeNews> | undefined;
  readonly #options: BadgeOptions;
  readonly #link: BadgeLink;
  #status: BadgeStatus = 'offline';
  /** Offline on purpose (a behaviour, or a refusal): do not reconnect on our own. */
  #wantOnline = false;
  #offlineOnPurpose = false;
  /** Real time, not the domain clock: a stub that is down has no clock to wait on. */
  #reconnectTimer: NodeJS.Timeout | undefined;
  readonly #backoff: Backoff | undefined;
  /** When (performance.now) the link was lost unexpectedly; undefined while not reconnecting. */
  #downSince: number | undefined;
  /** The close code that made the badge give up (4001 refused, 4003 replaced). */
  #gaveUpOn: number | undefined;
  #reconnects = 0;
  /** Hellos refused in a row because another fleet held the device (4010). */
  #claimedTries = 0;
  /** The timer of the clip playing (the machine's `startClipTimer`), on the domain clock. */
  #clipTimer: TimerId | undefined;
  #user: string | null = null;
  /** Taps on their way: fates, button frames waiting to leave, what became of them. */
  readonly #taps: BadgeTaps;
  /** Restored online from a snapshot, its new link not yet welcomed (decision FS6). */
  #resuming = false;
  /** The timer that brings the badge back after `drop`. */
  #dropTimer: TimerId | undefined;
  /** The latest state report not yet sent (real or scaled time); see `#report`. */
  #telemetry: StateReport | undefined;
  /** Badges of this process with a state report waiting; one timer sends them all. */
  static readonly #telemetryDue = new Set<Badge>();
  static #telemetryTimer: NodeJS.Timeout | undefined;

  /** @internal badges are made by `startFleet`, which builds their link to the stub. */
  constructor(options: BadgeOptions) {
    this.deviceId = options.deviceId;
    this.#options = options;
    this.#heard = new KeptLog(options.keep?.heard ?? HEARD_CAP);
    this.#activity = new KeptLog(options.keep?.activity ?? ACTIVITY_CAP);
    if (options.reconnect !== false) {
      const { random, ...given } = options.reconnect ?? {};
      this.#backoff = new Backoff({ ...DEFAULT_RECONNECT, ...given }, random);
    }
    this.#link = options.link({
      opened: () => this.#hello(),
      closed: (code) => this.#closed(code),
      frame: (frame) => this.#frame(frame),
      invalid: (_text, problem) => this.#error('unreadable_frame', problem),
    });
    this.#taps = new BadgeTaps(options.clock, (taskId) =>
      this.#link.send({ type: 'button', taps: 'single', task_id: taskId }),
    );
    const io: BadgeIo = {
      open: () => this.#link.open(),
      close: () => this.#link.close(),
      send: (frame) => {
        if (frame.type === 'button') {
          this.#taps.button(frame.task_id);
        } else {
          this.#report(frame);
        }
      },
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
      heard: {
        at: this.#heard.map((at) => at),
        clip: this.#heard.map((_, c) => clipIndex(c)),
        dropped: this.#heard.dropped,
      },
      activity: {
        at: this.#activity.map((at) => at),
        kind: this.#activity.map((_, kind) => kind),
        dropped: this.#activity.dropped,
      },
      errors: { entries: this.errors.map((e) => ({ ...e })), dropped: this.#errorsDropped },
      ...this.#taps.save(),
      dropBack: pending(this.#dropTimer),
      link: {
        wantOnline: this.#wantOnline,
        offlineOnPurpose: this.#offlineOnPurpose,
        gaveUpOn: this.#gaveUpOn ?? null,
        reconnects: this.#reconnects,
        claimedTries: this.#claimedTries,
        user: this.#user,
      },
    };
  }

  /** A snapshot's records, counters and link state, into a badge made with its machine. */
  #load(state: BadgeState, clips: readonly KeptClip[]): void {
    const { heard, activity } = state;
    this.#heard.load(
      heard.at.map((at, i) => [at, clips[heard.clip[i]!]!] as const),
      heard.dropped,
    );
    this.#activity.load(
      activity.at.map((at, i) => [at, activity.kind[i]!] as const),
      activity.dropped,
    );
    this.errors.push(...state.errors.entries.map((e) => ({ ...e })));
    this.#errorsDropped = state.errors.dropped;
    this.#taps.load(state);
    const link = state.link;
    this.#wantOnline = link.wantOnline;
    this.#offlineOnPurpose = link.offlineOnPurpose;
    this.#gaveUpOn = link.gaveUpOn ?? undefined;
    this.#reconnects = link.reconnects;
    this.#claimedTries = link.claimedTries;
    this.#user = link.user;
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
   * stays where it was, and it counts as online again once welcomed (decision FS6).
   */
  resumeLink(): void {
    this.#resuming = this.online;
    this.#link.open();
  }

  /** What the machine emitted: the badge's own records first, then whoever listens (`on`). */
  #emitted(event: BadgeEmitted): void {
    switch (event.type) {
      case 'stateChanged': {
        const wasOnline = this.online;
        this.#status = event.state;
        if (this.online !== wasOnline) this.#noteActivity(this.online ? 'online' : 'offline');
        break;
      }
      case 'clipStarted': {
        const now = this.#options.clock.now();
        this.#heard.push(now, sharedClip(event.clip));
        this.#heard.dropBefore(now - HEARD_RETENTION_MS);
        break;
      }
      case 'clipCut': {
        // Cut on this badge only: its own copy says so.
        const last = this.#heard.last();
        if (last) this.#heard.replaceLast({ ...last, cut: true });
        break;
      }
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
    return this.#heard.map((atMs, clip) => ({
      at: formatTimestamp(atMs),
      kind: clip.kind,
      task_id: clip.taskId,
      text: clip.text,
      duration_ms: clip.durationMs,
      ...(clip.repeat === undefined ? {} : { repeat: clip.repeat }),
      ...(clip.cause === undefined ? {} : { cause: clip.cause }),
      ...(clip.cut ? { cut: clip.cut } : {}),
    }));
  }

  /** Taps and network changes, oldest first (a new array on every read). */
  get activity(): BadgeActivity[] {
    return this.#activity.map((atMs, kind) => ({ at: formatTimestamp(atMs), kind }));
  }

  /**
   * What the badge keeps at most (`heard`: clips, `activity`: taps and network changes,
   * `errors`), and how many of each it has forgotten so far (past the cap or the 7 days).
   */
  get kept(): Record<'heard' | 'activity' | 'errors', { cap: number; dropped: number }> {
    return {
      heard: { cap: this.#heard.cap, dropped: this.#heard.dropped },
      activity: { cap: this.#activity.cap, dropped: this.#activity.dropped },
      errors: { cap: ERRORS_CAP, dropped: this.#errorsDropped },
    };
  }

  #noteActivity(kind: BadgeActivity['kind']): void {
    this.#activity.push(this.#options.clock.now(), kind);
  }

  /** offline, connecting, idle, playing, awaiting-ack, speaking or broadcasting. */
  /** Sent offline (`goOffline`, `vanish`) and not told to connect since. */
  get offlineOnPurpose(): boolean {
    return this.#offlineOnPurpose;
  }

  get status(): BadgeStatus {
    return this.#status;
  }

  get online(): boolean {
    return !this.#resuming && this.#status !== 'offline' && this.#status !== 'connecting';
  }

  /**
   * Lost its connection unexpectedly (or could not make one) and is trying again with
   * backoff; false once welcomed again, or when offline on purpose.
   */
  get reconnecting(): boolean {
    return this.#downSince !== undefined;
  }

  /** How long (real ms) the badge has been trying to reconnect; 0 when it is not. */
  get downForMs(): number {
    return this.#downSince === undefined ? 0 : performance.now() - this.#downSince;
  }

  /** Times the badge was welcomed after an unexpected close or a failed connect. */
  get reconnects(): number {
    return this.#reconnects;
  }

  /**
   * The close code that made the badge stop trying (4001 hello refused, 4003 replaced by a
   * newer connection of the same device); undefined otherwise. Cleared by `connect()`.
   */
  get gaveUpOn(): number | undefined {
    return this.#gaveUpOn;
  }

  /** The user-profile name the stub greeted this badge with. */
  get user(): string | null {
    return this.#user;
  }

  /** Alerts the badge has heard and the stub has not stopped. */
  get openAlerts(): string[] {
    return this.#machine.snapshot.context.open.map((a) => a.taskId);
  }

  connect(): void {
    this.#wantOnline = true;
    this.#offlineOnPurpose = false;
    this.#gaveUpOn = undefined;
    this.#machine.send({ type: 'CONNECT' });
  }

  /**
   * Taps the talk button: acknowledges the alert playing (or the one given). `fate` makes
   * this tap's button frame go wrong on the way (lost, delayed, duplicated), over any the
   * behaviour draws.
   */
  tap(taskId?: string, fate?: TapFate): void {
    if (fate) checkTapFate(fate);
    this.#noteActivity('tap');
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
    this.#stopReconnecting();
    this.#offlineOnPurpose = true;
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
    this.#stopReconnecting();
    this.#offlineOnPurpose = true;
    this.#link.vanish();
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
    return this.#link.send({ type: 'wake', at: Math.ceil(at) });
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
    Badge.#telemetryDue.delete(this);
    this.#telemetry = undefined;
    this.#stopReconnecting();
    // Stopping the machine runs no exit action: the clip's timer is dropped here.
    this.#options.clock.clearTimer(this.#clipTimer);
    this.#options.clock.clearTimer(this.#dropTimer);
    this.#taps.dispose();
    this.#link.close();
    this.#machine.stop();
  }

  #hello(): void {
    const context = this.#machine.snapshot.context;
    this.#link.send({
      type: 'hello',
      protocol: DEVICE_PROTOCOL_VERSION,
      device_id: this.deviceId,
      ...(this.#options.key ? { key: this.#options.key } : {}),
      battery_level: context.batteryLevel,
      ...(context.location ? { location: context.location } : {}),
      app_version: 'badge-sim',
      ...(this.#options.session ? { session: this.#options.session } : {}),
    });
  }

  /**
   * A stop: an `acknowledged` one that no button frame of this badge asked for was made for
   * it at the stub (the control API), and is told as a `controlTap`.
   */
  #stopped(taskId: string, cause: string): void {
    if (this.#taps.stopped(taskId, cause)) this.#listeners?.tell({ type: 'controlTap', taskId });
  }

  /**
   * State reports are telemetry. On a virtual clock they go at once (tests read them); in real
   * or scaled time they are coalesced, the latest at most every 250 ms, as devices batch
   * telemetry: a fan-out to thousands of badges is not slowed by thousands of reports.
   * One timer for every badge of the process sends what is waiting, every 250 ms while
   * anything is: a badge sends at most once a round, and a fan-out does not make a timer
   * per badge.
   */
  #report(frame: StateReport): void {
    if (this.#link.answerFrames) {
      this.#link.send(frame);
      return;
    }
    this.#telemetry = frame;
    Badge.#telemetryDue.add(this);
    // Real time, by design: coalescing is about the wire, not the simulated world.
    Badge.#telemetryTimer ??= setTimeout(Badge.#sendTelemetry, TELEMETRY_COALESCE_MS);
  }

  static #sendTelemetry(): void {
    Badge.#telemetryTimer = undefined;
    const due = [...Badge.#telemetryDue];
    Badge.#telemetryDue.clear();
    for (const badge of due) {
      const latest = badge.#telemetry;
      badge.#telemetry = undefined;
      if (latest) badge.#link.send(latest);
    }
  }

  /** Deals with a frame; synchronously when it can (the common case), else as a promise. */
  #frame(frame: StubFrame): void | Promise<void> {
    // A command happened at the stub's `at`: a clock of our own catches up before acting on it.
    const caughtUp = 'at' in frame ? this.#options.onStubTime?.(frame.at) : undefined;
    if (caughtUp) return caughtUp.then(() => this.#act(frame));
    return this.#act(frame);
  }

  #act(frame: StubFrame): void | Promise<void> {
    switch (frame.type) {
      case 'welcome':
      case 'clock':
        return this.#stubClock(frame);
      case 'play':
        return this.#withDuration(frame.text, (durationMs) =>
          this.#machine.send({
            type: 'PLAY',
            taskId: frame.task_id,
            name: frame.name,
            text: frame.text,
            repeat: frame.repeat,
            durationMs,
          }),
        );
      case 'broadcast':
        return this.#withDuration(frame.text, (durationMs) =>
          this.#machine.send({
            type: 'BROADCAST',
            taskId: frame.task_id,
            text: frame.text,
            durationMs,
          }),
        );
      case 'speak':
        return this.#withDuration(frame.text, (durationMs) =>
          this.#machine.send({
            type: 'SPEAK',
            taskId: frame.task_id,
            text: frame.text,
            cause: frame.cause,
            durationMs,
          }),
        );
      case 'stop':
        this.#stopped(frame.task_id, frame.cause);
        this.#machine.send({ type: 'STOP', taskId: frame.task_id, cause: frame.cause });
        return;
      case 'error':
        this.#error(frame.code, frame.message);
        return;
    }
  }

  /** Keeps the newest errors only: a badge left running against a stub that refuses it stays small. */
  #error(code: string, message: string): void {
    this.errors.push({ code, message });
    if (this.errors.length > ERRORS_CAP) {
      this.errors.shift();
      this.#errorsDropped++;
    }
  }

  /** Acts once the engine knows how long the text takes: at once for a synchronous engine. */
  #withDuration(text: string, act: (durationMs: number) => void): void | Promise<void> {
    const duration = this.#options.tts.duration(text);
    if (typeof duration === 'number') act(duration);
    else return duration.then(act);
  }

  /** The stub's clock: answer frames only while it is virtual; the fleet's clock follows it. */
  async #stubClock(frame: Extract<StubFrame, { type: 'welcome' | 'clock' }>): Promise<void> {
    this.#link.answerFrames = frame.mode === 'virtual';
    if (frame.type === 'welcome') {
      this.#user = frame.user;
      this.#claimedTries = 0;
    }
    await this.#options.onStubClock?.(frame);
    if (frame.type === 'welcome') {
      // The stub has replaced a connection the network vanished under: let it go here too.
      this.#link.dropSilent();
      if (this.#downSince !== undefined) this.#reconnects++;
      this.#downSince = undefined;
      this.#backoff?.reset();
      this.#machine.send({ type: 'CONNECTED', user: frame.user });
      if (this.#resuming) {
        // Restored online: the machine was already there, so it told nobody (FS6).
        this.#resuming = false;
        this.#listeners?.tell({ type: 'stateChanged', state: this.#status });
      }
    }
  }

  /** Offline on purpose from now: no reconnect timer is left to fire. */
  #stopReconnecting(): void {
    this.#wantOnline = false;
    this.#downSince = undefined;
    clearTimeout(this.#reconnectTimer);
    this.#reconnectTimer = undefined;
  }

  /**
   * The link closed without the badge asking (a close it asked for is not reported): the
   * stub stopped (1001), died or is not up (1006), or closed it (4001, 4002, 4003). Every
   * close reconnects with backoff except a refused hello (4001: the same hello would be
   * refused again, forever) and a replaced connection (4003: another connection holds the
   * device; taking it back would make the two replace each other in a loop).
   */
  #closed(code: number): void {
    // A stop that did not come before the close will not come: a new session starts clean.
    this.#taps.forgetTapped();
    this.#resuming = false;
    this.#machine.send({ type: 'DISCONNECTED' });
    // Another fleet holds the device: it may be leaving (a test's fleet closing as the next
    // one starts), so a few tries on the backoff, then give up (decision D13).
    const claimedTooOften = code === CLOSE_CODES.claimed && ++this.#claimedTries > CLAIMED_TRIES;
    if (code === CLOSE_CODES.refused || code === CLOSE_CODES.replaced || claimedTooOften) {
      this.#gaveUpOn = code;
      this.#stopReconnecting();
      return;
    }
    if (!this.#wantOnline || !this.#backoff) {
      this.#downSince = undefined;
      return;
    }
    this.#downSince ??= performance.now();
    clearTimeout(this.#reconnectTimer);
    // Real time on purpose: reconnecting is about the network, and a stub that is down has
    // no clock that could move a domain timer.
    this.#reconnectTimer = setTimeout(() => {
      this.#reconnectTimer = undefined;
      if (this.#wantOnline && this.#status === 'offline') this.#machine.send({ type: 'CONNECT' });
    }, this.#backoff.next());
  }
}

/** The one event a restored clip timer sends. */
const CLIP_ENDED = { type: 'CLIP_ENDED' } as const;

/** A clock a snapshot can read its timers from (the fleet's `VirtualClock`). */
type PendingClock = Clock & { pending?(id: TimerId | undefined): SavedTimer | undefined };

/** The status a restored machine's state value stands for (`route` passes at once: idle). */
function statusOf(value: BadgeState['machine']['value']): BadgeStatus {
  if (typeof value === 'string') return value as BadgeStatus;
  const inner = String((value as { online: string }).online);
  return (inner === 'route' ? 'idle' : inner) as BadgeStatus;
}
