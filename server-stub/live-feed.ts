/**
 * The live feed behind `GET /_stub/stream`: it hears the engine (events, what each device is
 * sent), the gateway (connects, closes, state reports), the clock and resets, and tells each
 * subscriber what changed, at most once every STREAM_FLUSH_MS of real time (a transport
 * batch, not domain time). What a subscriber has waiting is bounded whatever it does: a set
 * of changed device ids (at most the fixtures' devices), flags, and at most
 * STREAM_PENDING_EVENTS_MAX events (older ones dropped and counted). A subscriber that cannot
 * take more (`writable` false) is skipped, its changes merged, until it drains (UI2).
 */
import { formatTimestamp } from '../clock/clock.ts';
import type { ClockView } from '../protocol/control-api.schema.ts';
import {
  type LiveDevice,
  type LiveEvent,
  type LiveHeard,
  type LiveSnapshot,
  type LiveTask,
  type LiveUpdate,
  STREAM_FLUSH_MS,
  STREAM_PENDING_EVENTS_MAX,
  STREAM_RECENT_EVENTS,
  STREAM_RECENT_HEARD,
  STREAM_RECENT_PRESENCE,
  STREAM_TASKS_MAX,
} from '../protocol/live-stream.schema.ts';
import { clockView } from './clock-view.ts';
import type { DeviceGateway } from './device-gateway.ts';
import type { DeviceCommand } from './engine/alert-engine.ts';
import { HeardRing, PresenceRing } from './heard-ring.ts';
import type { StubCore } from './stub-core.ts';

/** Badges the stub runs itself (`--badges`): the dashboard can take them offline and back. */
export interface LocalBadges {
  has(deviceId: string): boolean;
  /** Takes the badge off the network (false) or brings it back (true). */
  setOnline(deviceId: string, online: boolean): void;
  /** Their fleet snapshot, for `GET /_stub/snapshot?include=badges` (WS24). */
  snapshot?(): unknown;
}

export interface FeedSubscriber {
  /** Writes one message; the feed has checked `writable` first. */
  write(name: 'snapshot' | 'update', data: string): void;
  /** Whether it can take a message now (its socket holds little unread). */
  writable(): boolean;
  /** Ends it: the stub is stopping. */
  end(): void;
}

interface Pending {
  snapshot: boolean;
  clock: boolean;
  tasks: boolean;
  devices: Set<string>;
  events: LiveEvent[];
  dropped: number;
  /** The heard ring's count when this subscriber was last written to. */
  heardFrom: number;
  /** The presence ring's count then. */
  presenceFrom: number;
}

export class LiveFeed {
  readonly #core: StubCore;
  readonly #gateway: DeviceGateway;
  readonly #subscribers = new Map<FeedSubscriber, Pending>();
  /**
   * What each device hears or says now (the last play, broadcast or speech until its stop), its
   * instant kept as a number and printed only when read: a fan-out to 10,000 badges would
   * otherwise format 10,000 timestamps nobody sees.
   */
  readonly #heard = new Map<string, Omit<LiveHeard, 'at'> & { atMs: number }>();
  /** The newest events, oldest first: the last STREAM_RECENT_EVENTS of it are shown. */
  #recent: LiveEvent[] = [];
  /** Every play, broadcast and speech, the newest kept: each is told, not only the last (UI12). */
  readonly #heardLines = new HeardRing(STREAM_RECENT_HEARD);
  /** Every time a badge went offline or came online, the newest kept: a reload draws them (UI17). */
  readonly #presence = new PresenceRing(STREAM_RECENT_PRESENCE);
  #groupsOf: Map<string, string[]> | undefined;
  #timer: NodeJS.Timeout | undefined;
  readonly #unsubscribe: (() => void)[];
  localBadges: LocalBadges | undefined;

  constructor(core: StubCore, gateway: DeviceGateway) {
    this.#core = core;
    this.#gateway = gateway;
    this.#unsubscribe = [
      core.engine.onEvent((subscriberId, event) =>
        this.#event({ subscriber_id: subscriberId, event }),
      ),
      core.engine.onDeliver((deviceId, command) => this.#delivered(deviceId, command)),
      gateway.onDeviceChange((deviceId, online) => {
        // A connect or a close (rare), never a state report: nothing more on the frame path.
        if (online !== undefined) this.#presence.add(core.clock.now(), deviceId, online);
        this.#mark((p) => p.devices.add(deviceId));
      }),
      core.onClockChange(() => this.#mark((p) => (p.clock = true))),
      core.onReset(() => {
        this.#heard.clear();
        this.#heardLines.clear();
        this.#presence.clear();
        this.#recent = [];
        this.#groupsOf = undefined;
        this.#mark((p) => (p.snapshot = true));
      }),
    ];
  }

  get subscribers(): number {
    return this.#subscribers.size;
  }

  /** Sends `subscriber` the snapshot now, then what changes; returns the unsubscribe. */
  subscribe(subscriber: FeedSubscriber): () => void {
    subscriber.write('snapshot', JSON.stringify(this.snapshot()));
    this.#subscribers.set(subscriber, this.#emptyPending());
    return () => this.#subscribers.delete(subscriber);
  }

  /** A subscriber that could not take more can now: what it has waiting goes out soon. */
  drained(): void {
    this.#schedule();
  }

  snapshot(): LiveSnapshot {
    const directory = this.#core.directory;
    return {
      clock: this.clockView(),
      accounts: this.#core.fixtures.accounts.map((a) => ({
        subscriber_id: a.subscriber_id,
        name: a.name ?? null,
        groups: a.groups.map((g) => g.name),
      })),
      devices: directory.devices().map((d) => this.device(d.id)!),
      tasks: this.tasks(),
      events: this.#recent.slice(-STREAM_RECENT_EVENTS),
      heard: this.#heardLines.since(0).lines,
      heard_dropped: this.#heardLines.dropped,
      presence: this.#presence.since(0).lines,
      presence_dropped: this.#presence.dropped,
    };
  }

  clockView(): ClockView {
    return clockView(this.#core.clock);
  }

  /** A device as the dashboard shows it, or undefined when the fixtures have no such device. */
  device(deviceId: string): LiveDevice | undefined {
    const device = this.#core.directory.device(deviceId);
    if (!device) return undefined;
    const live = this.#gateway.liveState(deviceId);
    const facts = this.#gateway.facts(deviceId);
    const location = live.location && { ...live.location };
    if (location) delete (location as { timestamp?: number }).timestamp;
    return {
      device_id: device.id,
      user: device.user,
      subscriber_id: device.subscriberId,
      groups: this.#groups().get(device.id) ?? [],
      online: facts.online,
      state: live.state,
      responsive: live.responsive,
      battery_level: facts.battery_level,
      battery_status: facts.battery_status,
      location,
      heard: heardNow(this.#heard.get(device.id)),
      run_by_stub: this.localBadges?.has(device.id) ?? false,
    };
  }

  /** Every alerting task, then the newest ended ones: at most STREAM_TASKS_MAX in all. */
  tasks(): LiveTask[] {
    return this.#core.engine.latestTasks(STREAM_TASKS_MAX).map((task) => ({
      ...task,
      timeout_at: formatTimestamp(Date.parse(task.created_at) + task.timeout * 1000),
    }));
  }

  /** Stops hearing the stub and ends every subscriber (an open stream would hold the server open). */
  close(): void {
    for (const off of this.#unsubscribe) off();
    clearTimeout(this.#timer);
    const subscribers = [...this.#subscribers.keys()];
    this.#subscribers.clear();
    for (const subscriber of subscribers) subscriber.end();
  }

  #event(event: LiveEvent): void {
    // Cut back only when twice as long: amortised O(1) an event (a shift each moved them all).
    this.#recent.push(event);
    if (this.#recent.length >= STREAM_RECENT_EVENTS * 2)
      this.#recent = this.#recent.slice(-STREAM_RECENT_EVENTS);
    // Asked here too: with nobody subscribed, an alert's event makes no closure to mark nothing.
    if (this.#subscribers.size === 0) return;
    this.#mark((p) => {
      p.tasks = true;
      p.events.push(event);
      if (p.events.length > STREAM_PENDING_EVENTS_MAX) {
        p.events.shift();
        p.dropped++;
      }
    });
  }

  #delivered(deviceId: string, command: DeviceCommand): void {
    if (command.type === 'stop') {
      if (this.#heard.get(deviceId)?.task_id === command.taskId) this.#heard.delete(deviceId);
    } else {
      this.#heardLines.add(this.#core.clock.now(), deviceId, command);
      this.#heard.set(deviceId, {
        kind: command.type,
        text: command.text,
        task_id: command.taskId,
        atMs: this.#core.clock.now(),
      });
    }
    if (this.#subscribers.size === 0) return;
    this.#mark((p) => {
      p.devices.add(deviceId);
      p.tasks = true;
    });
  }

  #mark(change: (pending: Pending) => void): void {
    if (this.#subscribers.size === 0) return;
    for (const pending of this.#subscribers.values()) change(pending);
    this.#schedule();
  }

  #schedule(): void {
    if (this.#timer !== undefined) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.flush();
    }, STREAM_FLUSH_MS);
    this.#timer.unref();
  }

  /** Sends each subscriber that can take it what changed since its last message (the timer's work). */
  flush(): void {
    // Computed once a flush, for every subscriber that wants them.
    let tasks: LiveTask[] | undefined;
    const devices = new Map<string, LiveDevice | undefined>();
    const deviceOf = (id: string) => {
      if (!devices.has(id)) devices.set(id, this.device(id));
      return devices.get(id);
    };
    for (const [subscriber, pending] of this.#subscribers) {
      if (isEmpty(pending) || !subscriber.writable()) continue;
      this.#subscribers.set(subscriber, this.#emptyPending());
      if (pending.snapshot) {
        subscriber.write('snapshot', JSON.stringify(this.snapshot()));
        continue;
      }
      const update: LiveUpdate = {
        clock: this.clockView(),
        devices: [...pending.devices].flatMap((id) => deviceOf(id) ?? []),
        events: pending.events,
        events_dropped: pending.dropped,
        ...this.#linesSince(pending),
      };
      if (pending.tasks) update.tasks = tasks ??= this.tasks();
      subscriber.write('update', JSON.stringify(update));
    }
  }

  /** What the rings hold that `pending`'s subscriber was not sent yet. */
  #linesSince(
    pending: Pending,
  ): Pick<LiveUpdate, 'heard' | 'heard_dropped' | 'presence' | 'presence_dropped'> {
    const heard = this.#heardLines.since(pending.heardFrom);
    const presence = this.#presence.since(pending.presenceFrom);
    return {
      heard: heard.lines,
      heard_dropped: heard.dropped,
      presence: presence.lines,
      presence_dropped: presence.dropped,
    };
  }

  #emptyPending(): Pending {
    return {
      heardFrom: this.#heardLines.count,
      presenceFrom: this.#presence.count,
      snapshot: false,
      clock: false,
      tasks: false,
      devices: new Set(),
      events: [],
      dropped: 0,
    };
  }

  /** Device id → names of its groups, from the fixtures (made again after a reset). */
  #groups(): Map<string, string[]> {
    if (this.#groupsOf) return this.#groupsOf;
    const groupsOf = new Map<string, string[]>();
    for (const account of this.#core.fixtures.accounts) {
      for (const group of account.groups) {
        for (const member of group.members) {
          const list = groupsOf.get(member);
          if (list) list.push(group.name);
          else groupsOf.set(member, [group.name]);
        }
      }
    }
    this.#groupsOf = groupsOf;
    return groupsOf;
  }
}

function isEmpty(p: Pending): boolean {
  return !p.snapshot && !p.clock && !p.tasks && p.devices.size === 0 && p.events.length === 0;
}

function heardNow(heard: (Omit<LiveHeard, 'at'> & { atMs: number }) | undefined): LiveHeard | null {
  if (!heard) return null;
  const { atMs, ...rest } = heard;
  return { ...rest, at: formatTimestamp(atMs) };
}
