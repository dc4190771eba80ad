/**
 * The alert engine's delivery bookkeeping: what each device plays and when (its lanes: per
 * alert name the head plays and repeats every 30 s, the rest queue), the commands given to
 * it, made once a task and shared by its devices, and its transcript of them; every command
 * goes to the delivery listeners (the device gateway, the live feed). The lifecycle of the
 * tasks (alert-engine.ts) decides what happens; this says it to the devices.
 */
import { type Clock, formatTimestamp } from '../../clock/clock.ts';
import type { DeviceCommand, SpeechCause, StopCause, TranscriptEntry } from './device-command.ts';
import type { EngineStats } from './engine-types.ts';
import { Lane } from './lane.ts';
import { TRANSCRIPT_RETENTION_MS } from './retention.ts';
import type { Task, TaskCommands, TaskDevice, TaskOutcome } from './task-record.ts';
import { Transcript, transcriptShare } from './transcript.ts';

/** The spec's repeat interval: an alert plays again every 30 s until acknowledged. */
const REPEAT_INTERVAL_MS = 30_000;
/** At most this many transcript lines per device, the oldest dropped first (H2). */
const TRANSCRIPT_CAP = 1_000;

/** What a world snapshot keeps of the deliveries (protocol/snapshot.schema.ts, `engine`). */
export interface DeliveriesSnapshot {
  plays: number;
  lanes: { device_id: string; name: string; task_ids: string[] }[];
  /** The commands the transcripts name, each once (shared, as the transcripts share them). */
  commands: object[];
  /** Each line's instant and its command's index in `commands` (WS19). */
  transcripts: { device_id: string; at: number[]; command: number[] }[];
}

export type DeliveryListener = (deviceId: string, command: DeviceCommand) => void;

export class DeviceDeliveries {
  readonly #clock: Clock;
  /**
   * Per device, per alert name, the alerts waiting for it: the head plays, the rest queue
   * (serial alerting for one name); different names each have a lane and interleave.
   */
  #lanes = new Map<string, Map<string, Lane<TaskDevice>>>();
  #transcripts = new Map<string, Transcript>();
  /** Lines a device's transcript keeps: its share of TRANSCRIPT_LINES_BUDGET. */
  #transcriptCap = TRANSCRIPT_CAP;
  /** Plays so far: which of two alerts played at one instant played last (L9, MB2). */
  #plays = 0;
  readonly #listeners = new Set<DeliveryListener>();

  constructor(clock: Clock, devices: number) {
    this.#clock = clock;
    this.#transcriptCap = transcriptShare(devices, TRANSCRIPT_CAP);
  }

  /** Listens to every command given to a device; returns the unsubscribe function. */
  onDeliver(listener: DeliveryListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** A task's device joins its lane for the task's name: it plays now if the lane was empty. */
  enqueue(task: Task, td: TaskDevice): void {
    let lanes = this.#lanes.get(td.device.id);
    if (!lanes) {
      lanes = new Map();
      this.#lanes.set(td.device.id, lanes);
    }
    const lane = lanes.get(task.name);
    if (lane) {
      lane.add(td);
      return;
    }
    const newLane = new Lane<TaskDevice>();
    newLane.add(td);
    lanes.set(task.name, newLane);
    td.status = 'playing';
    this.play(task, td);
  }

  /** Plays a task on a device now, and again every REPEAT_INTERVAL_MS. */
  play(task: Task, td: TaskDevice): void {
    td.lastPlayed = ++this.#plays;
    this.deliver(td.device.id, playCommand(task, td.plays++));
    td.timer = this.#clock.setTimer(REPEAT_INTERVAL_MS, () => this.play(task, td));
  }

  /** A device acknowledged a task: it stops there, `on_ack` is spoken, its lane moves on. */
  acknowledged(task: Task, td: TaskDevice): void {
    const deviceId = td.device.id;
    this.deliver(deviceId, stopCommand(task, 'acknowledged'));
    if (task.request.on_ack)
      this.deliver(deviceId, speakCommand(task, 'on_ack', task.request.on_ack));
    this.leave(task, td);
  }

  /**
   * A task ended: on every device that did not acknowledge it, it stops (if it was playing),
   * the outcome's speech is spoken, and the device's lane moves on.
   */
  ended(task: Task, outcome: TaskOutcome): void {
    const speech =
      outcome === 'quorum'
        ? task.request.on_quorum
        : outcome === 'timed_out'
          ? task.request.on_timeout
          : undefined;
    const cause: SpeechCause = outcome === 'quorum' ? 'on_quorum' : 'on_timeout';
    for (const td of task.devices.values()) {
      if (td.status === 'acknowledged') continue;
      if (td.status === 'playing') {
        this.#clock.clearTimer(td.timer);
        this.deliver(td.device.id, stopCommand(task, outcome));
      }
      td.status = 'stopped';
      if (speech) this.deliver(td.device.id, speakCommand(task, cause, speech));
      this.leave(task, td);
    }
  }

  /** Takes a task out of a device's lane; if it was playing there, the next one starts. */
  leave(task: Task, td: TaskDevice): void {
    if (!td.inLane) return;
    const lanes = this.#lanes.get(td.device.id)!;
    const lane = lanes.get(task.name)!;
    const wasHead = lane.head() === td;
    lane.remove(td);
    if (lane.size === 0) {
      lanes.delete(task.name);
      if (lanes.size === 0) this.#lanes.delete(td.device.id);
      return;
    }
    if (wasHead) {
      const nextTd = lane.head()!;
      const next = nextTd.task;
      // The timeout wins at its instant (L1), for a queued alert too: one that times out at
      // this very instant does not start here, only to be cut at once (its timeout ends it).
      if (next.createdAt + next.timeoutS * 1000 <= this.#clock.now()) return;
      nextTd.status = 'playing';
      this.play(next, nextTd);
    }
  }

  /**
   * The alert a device's talk button acknowledges: of the alerts of several names playing at
   * once, the one played most recently is the one being heard.
   */
  heard(deviceId: string): TaskDevice | undefined {
    let heard: TaskDevice | undefined;
    for (const lane of this.#lanes.get(deviceId)?.values() ?? []) {
      const td = lane.head()!;
      if (td.status === 'playing' && (!heard || td.lastPlayed > heard.lastPlayed)) heard = td;
    }
    return heard;
  }

  /** The alerts a device is playing now, one a lane at most. */
  playing(deviceId: string): TaskDevice[] {
    const playing: TaskDevice[] = [];
    for (const lane of this.#lanes.get(deviceId)?.values() ?? []) {
      const td = lane.head()!;
      if (td.status === 'playing') playing.push(td);
    }
    return playing;
  }

  /** Gives a device a command: into its transcript, and to every listener. */
  deliver(deviceId: string, command: DeviceCommand): void {
    let transcript = this.#transcripts.get(deviceId);
    if (!transcript) {
      transcript = new Transcript(this.#transcriptCap);
      this.#transcripts.set(deviceId, transcript);
    }
    const now = this.#clock.now();
    transcript.add(now, command);
    transcript.dropBefore(now - TRANSCRIPT_RETENTION_MS);
    for (const listener of this.#listeners) listener(deviceId, command);
  }

  /**
   * Everything played or spoken on a device, oldest first: the last 7 days, at most
   * TRANSCRIPT_CAP lines (H2).
   */
  transcript(deviceId: string): readonly TranscriptEntry[] {
    const transcript = this.#transcripts.get(deviceId);
    if (!transcript) return [];
    transcript.dropBefore(this.#clock.now() - TRANSCRIPT_RETENTION_MS);
    const entries: TranscriptEntry[] = [];
    for (const { atMs, command } of transcript.lines()) {
      entries.push({ ...command, at: formatTimestamp(atMs) });
    }
    return entries;
  }

  /**
   * Lines a device's transcript keeps at most, and the lines dropped since the last reset, by
   * the cap or by age.
   */
  keptLines(): { cap: number; dropped: number } {
    let dropped = 0;
    for (const t of this.#transcripts.values()) dropped += t.dropped;
    return { cap: this.#transcriptCap, dropped };
  }

  /** What is held now: devices with lanes, lanes, devices with a transcript, its lines. */
  stats(): Pick<EngineStats, 'laneDevices' | 'lanes' | 'transcriptDevices' | 'transcriptEntries'> {
    let lanes = 0;
    for (const byName of this.#lanes.values()) lanes += byName.size;
    let transcriptEntries = 0;
    for (const t of this.#transcripts.values()) transcriptEntries += t.size;
    return {
      laneDevices: this.#lanes.size,
      lanes,
      transcriptDevices: this.#transcripts.size,
      transcriptEntries,
    };
  }

  /** The lanes, the transcripts and the count of plays, as a world snapshot keeps them. */
  toSnapshot(now: number): DeliveriesSnapshot {
    const lanes: DeliveriesSnapshot['lanes'] = [];
    for (const [deviceId, byName] of this.#lanes) {
      for (const [name, lane] of byName) {
        lanes.push({ device_id: deviceId, name, task_ids: lane.entries().map((td) => td.task.id) });
      }
    }
    // By content, not identity: equal worlds write equal tables, however their objects are shared.
    const commands = new Map<string, number>();
    const indexOf = new Map<DeviceCommand, number>();
    const transcripts: DeliveriesSnapshot['transcripts'] = [];
    for (const [deviceId, transcript] of this.#transcripts) {
      transcript.dropBefore(now - TRANSCRIPT_RETENTION_MS);
      const at: number[] = [];
      const command: number[] = [];
      for (const line of transcript.lines()) {
        at.push(line.atMs);
        let index = indexOf.get(line.command);
        if (index === undefined) {
          const json = JSON.stringify(line.command);
          index = commands.get(json) ?? commands.size;
          commands.set(json, index);
          indexOf.set(line.command, index);
        }
        command.push(index);
      }
      transcripts.push({ device_id: deviceId, at, command });
    }
    return {
      plays: this.#plays,
      lanes,
      commands: [...commands.keys()].map((json) => JSON.parse(json) as object),
      transcripts,
    };
  }

  /**
   * Puts a snapshot's lanes and transcripts in place (after `reset`); `member` is the device
   * of a task a lane names (the restore checked it is one).
   */
  restore(
    snapshot: DeliveriesSnapshot,
    member: (taskId: string, deviceId: string) => TaskDevice,
  ): void {
    this.#plays = snapshot.plays;
    for (const { device_id, name, task_ids } of snapshot.lanes) {
      const byName = this.#lanes.get(device_id) ?? new Map<string, Lane<TaskDevice>>();
      this.#lanes.set(device_id, byName);
      const lane = new Lane<TaskDevice>();
      for (const taskId of task_ids) lane.add(member(taskId, device_id));
      byName.set(name, lane);
    }
    const commands = snapshot.commands as DeviceCommand[];
    for (const { device_id, at, command } of snapshot.transcripts) {
      const transcript = new Transcript(this.#transcriptCap);
      transcript.load(at, (i) => commands[command[i]!]!);
      this.#transcripts.set(device_id, transcript);
    }
  }

  /** Forgets every lane and transcript (new, empty stores), for fixtures of `devices` devices. */
  reset(devices: number): void {
    this.#lanes = new Map();
    this.#transcripts = new Map();
    this.#transcriptCap = transcriptShare(devices, TRANSCRIPT_CAP);
  }
}

/**
 * A task's n-th play, shared by the devices that hear it together (a fan-out, a repeat): only
 * the latest is kept, so a week-long alert does not keep one command per repeat.
 */
function playCommand(task: Task, repeat: number): DeviceCommand {
  const commands = commandsOf(task);
  if (commands.play?.repeat !== repeat) {
    commands.play = {
      type: 'play',
      taskId: task.id,
      name: task.name,
      text: task.request.notification,
      repeat,
    };
  }
  return commands.play;
}

function stopCommand(task: Task, cause: StopCause): DeviceCommand {
  const commands = commandsOf(task);
  commands.stop ??= {};
  const stop = commands.stop;
  stop[cause] ??= { type: 'stop', taskId: task.id, cause };
  return stop[cause];
}

function speakCommand(task: Task, cause: SpeechCause, text: string): DeviceCommand {
  const commands = commandsOf(task);
  commands.speak ??= {};
  const speak = commands.speak;
  speak[cause] ??= { type: 'speak', taskId: task.id, text, cause };
  return speak[cause];
}

function commandsOf(task: Task): TaskCommands {
  task.commands ??= { play: undefined, stop: undefined, speak: undefined };
  return task.commands;
}
