import type { BadgeStatus, StubFrame } from '../protocol/device-frames.schema.ts';
import type { BadgeEvent, BadgeIo } from './badge.machine.ts';
import { actOn, type FrameActions, helloFrame, type StubClockFrame } from './badge-frames.ts';
import { BadgeReconnect } from './badge-reconnect.ts';
import type { BadgeRecords } from './badge-records.ts';
import type { BadgeRunner } from './badge-runner.ts';
import type { BadgeTaps } from './badge-taps.ts';
import { BadgeTelemetry } from './badge-telemetry.ts';
import type { BadgeNews, BadgeOptions } from './badge-types.ts';
import type { BadgeLink } from './transport.ts';
import type { TextToSpeech } from './tts/text-to-speech.ts';

/** What a badge's connection reads of its badge. */
export interface ConnectionHost {
  readonly taps: BadgeTaps;
  readonly records: BadgeRecords;
  status(): BadgeStatus;
  /** Tells whoever listens to the badge (`Badge.on`). */
  tell(news: BadgeNews): void;
}

/**
 * A badge's side of its link to the stub: the hello, the stub's frames turned into what the
 * badge does, its clock and welcome, state reports, and closes with their reconnecting.
 */
export class BadgeConnection implements FrameActions {
  readonly link: BadgeLink;
  /** Whether it wants to be online, and its reconnecting with backoff after a close. */
  readonly reconnect: BadgeReconnect;
  /** State reports, coalesced in real or scaled time. */
  readonly telemetry: BadgeTelemetry;
  /** The user-profile name the stub greeted this badge with. */
  user: string | null = null;
  /** Restored online from a snapshot, its new link not yet welcomed (decision FS6). */
  resuming = false;
  /** The instant of the snapshot it was restored from, said in its hello while resuming (WS35). */
  resumesAt: number | undefined;
  readonly #options: BadgeOptions;
  readonly #host: ConnectionHost;
  /** The badge's machine; made after the link, whose io it is given (`attach`). */
  #machine!: BadgeRunner;
  readonly tts: TextToSpeech;

  constructor(options: BadgeOptions, host: ConnectionHost) {
    this.#options = options;
    this.#host = host;
    this.reconnect = new BadgeReconnect(options.reconnect, () => {
      if (host.status() === 'offline') this.#machine.send({ type: 'CONNECT' });
    });
    this.link = options.link({
      opened: () =>
        this.link.send(
          helloFrame(
            options,
            this.#machine.snapshot.context,
            this.resuming ? this.resumesAt : undefined,
          ),
        ),
      closed: (code) => this.#closed(code),
      frame: (frame) => this.#frame(frame),
      invalid: (_text, problem) => host.records.error('unreadable_frame', problem),
    });
    this.telemetry = new BadgeTelemetry(this.link);
    this.tts = options.tts;
  }

  /** What the machine sends: a button frame goes the taps' way, a state report is telemetry. */
  send(frame: Parameters<BadgeIo['send']>[0]): void {
    if (frame.type === 'button') {
      this.#host.taps.button(frame.task_id);
    } else {
      this.telemetry.report(frame);
    }
  }

  /** A restored badge opens a new link (FS6); its hello names the snapshot's instant (WS35). */
  resume(online: boolean, snapshotAt: number | undefined): void {
    this.resuming = online;
    this.resumesAt = snapshotAt;
    this.link.open();
  }

  attach(machine: BadgeRunner): void {
    this.#machine = machine;
  }

  toMachine(event: BadgeEvent): void {
    this.#machine.send(event);
  }

  error(code: string, message: string): void {
    this.#host.records.error(code, message);
  }

  /**
   * A stop: an `acknowledged` one that no button frame of this badge asked for was made for
   * it at the stub (the control API), and is told as a `controlTap`.
   */
  stopped(taskId: string, cause: string): void {
    if (this.#host.taps.stopped(taskId, cause)) this.#host.tell({ type: 'controlTap', taskId });
  }

  /** Deals with a frame; synchronously when it can (the common case), else as a promise. */
  #frame(frame: StubFrame): void | Promise<void> {
    // A command happened at the stub's `at`: a clock of our own catches up before acting on it.
    const caughtUp = 'at' in frame ? this.#options.onStubTime?.(frame.at) : undefined;
    if (caughtUp) return caughtUp.then(() => actOn(frame, this));
    return actOn(frame, this);
  }

  /** The stub's clock: answer frames only while it is virtual; the fleet's clock follows it. */
  async stubClock(frame: StubClockFrame): Promise<void> {
    this.link.answerFrames = frame.mode === 'virtual';
    if (frame.type === 'welcome') {
      this.user = frame.user;
      this.reconnect.claimAccepted();
    }
    await this.#options.onStubClock?.(frame);
    if (frame.type === 'welcome') {
      // The stub has replaced a connection the network vanished under: let it go here too.
      this.link.dropSilent();
      this.reconnect.welcomed();
      this.#machine.send({ type: 'CONNECTED', user: frame.user });
      if (this.resuming) {
        // Restored online: the machine was already there, so it told nobody (FS6).
        this.resuming = false;
        this.#host.tell({ type: 'stateChanged', state: this.#host.status() });
      }
    }
  }

  /**
   * The link closed without the badge asking (a close it asked for is not reported): the
   * stub stopped (1001), died or is not up (1006), or closed it (4001, 4002, 4003); whether
   * and when it connects again is `BadgeReconnect`'s.
   */
  #closed(code: number): void {
    // A stop that did not come before the close will not come: a new session starts clean.
    this.#host.taps.forgetTapped();
    this.resuming = false;
    this.#machine.send({ type: 'DISCONNECTED' });
    this.reconnect.closed(code);
  }
}
