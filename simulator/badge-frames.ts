import {
  DEVICE_PROTOCOL_VERSION,
  type OutgoingBadgeFrame,
  type StubFrame,
} from '../protocol/device-frames.schema.ts';
import type { BadgeContext, BadgeEvent } from './badge.machine.ts';
import type { BadgeOptions } from './badge-types.ts';
import type { TextToSpeech } from './tts/text-to-speech.ts';

/** The stub's clock frames: a badge takes them apart from the commands. */
export type StubClockFrame = Extract<StubFrame, { type: 'welcome' | 'clock' }>;

/** What a badge does with the stub's frames (its connection): a frame allocates nothing. */
export interface FrameActions {
  /** Sends the machine the event a command stands for. */
  toMachine(event: BadgeEvent): void;
  readonly tts: TextToSpeech;
  stubClock(frame: StubClockFrame): Promise<void>;
  /** A stop came, before the machine hears it. */
  stopped(taskId: string, cause: string): void;
  error(code: string, message: string): void;
}

/**
 * A frame of the stub as what the badge does: the commands as machine events (once the text's
 * duration is known), the clock to the badge's clock, errors kept. Synchronous when it can be.
 */
export function actOn(frame: StubFrame, badge: FrameActions): void | Promise<void> {
  switch (frame.type) {
    case 'welcome':
    case 'clock':
      return badge.stubClock(frame);
    case 'play':
      return withDuration(badge.tts, frame.text, (durationMs) =>
        badge.toMachine({
          type: 'PLAY',
          taskId: frame.task_id,
          name: frame.name,
          text: frame.text,
          repeat: frame.repeat,
          durationMs,
        }),
      );
    case 'broadcast':
      return withDuration(badge.tts, frame.text, (durationMs) =>
        badge.toMachine({ type: 'BROADCAST', taskId: frame.task_id, text: frame.text, durationMs }),
      );
    case 'speak':
      return withDuration(badge.tts, frame.text, (durationMs) =>
        badge.toMachine({
          type: 'SPEAK',
          taskId: frame.task_id,
          text: frame.text,
          cause: frame.cause,
          durationMs,
        }),
      );
    case 'stop':
      badge.stopped(frame.task_id, frame.cause);
      badge.toMachine({ type: 'STOP', taskId: frame.task_id, cause: frame.cause });
      return;
    case 'error':
      badge.error(frame.code, frame.message);
      return;
  }
}

/** Acts once the engine knows how long the text takes: at once for a synchronous engine. */
function withDuration(
  tts: TextToSpeech,
  text: string,
  act: (durationMs: number) => void,
): void | Promise<void> {
  const duration = tts.duration(text);
  if (typeof duration === 'number') act(duration);
  else return duration.then(act);
}

/** The hello a badge opens its link with: who it is, its battery, where it is. */
export function helloFrame(
  options: BadgeOptions,
  context: BadgeContext,
  /** Restored from a world snapshot taken then: the stub may let it carry on (WS35). */
  resumes?: number,
): Extract<OutgoingBadgeFrame, { type: 'hello' }> {
  return {
    type: 'hello',
    protocol: DEVICE_PROTOCOL_VERSION,
    device_id: options.deviceId,
    ...(options.key ? { key: options.key } : {}),
    battery_level: context.batteryLevel,
    ...(context.location ? { location: context.location } : {}),
    app_version: 'badge-sim',
    ...(options.session ? { session: options.session } : {}),
    ...(resumes === undefined ? {} : { resumes }),
  };
}
