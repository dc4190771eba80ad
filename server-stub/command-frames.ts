/**
 * The frames the gateway writes for the engine's commands, serialised once for every device a
 * fan-out reaches. A play to 10,000 badges is the same frame 10,000 times but for its `seq`:
 * each badge's text is the shared opening with its seq after it (`protocol/numbered-frame.ts`),
 * for one `JSON.stringify` an alert instead of one a badge.
 */
import type { OutgoingStubFrame } from '../protocol/device-frames.schema.ts';
import { type FrameOpening, frameOpening } from '../protocol/numbered-frame.ts';
import type { DeviceCommand } from './engine/device-command.ts';

/** The frame a device is sent for a command given at `at` (the stub's ms). */
export function toFrame(command: DeviceCommand, at: number): OutgoingStubFrame {
  switch (command.type) {
    case 'play':
      return {
        type: 'play',
        at,
        task_id: command.taskId,
        name: command.name,
        text: command.text,
        repeat: command.repeat,
      };
    case 'broadcast':
      return { type: 'broadcast', at, task_id: command.taskId, text: command.text };
    case 'stop':
      return { type: 'stop', at, task_id: command.taskId, cause: command.cause };
    case 'speak':
      return {
        type: 'speak',
        at,
        task_id: command.taskId,
        text: command.text,
        cause: command.cause,
      };
  }
}

type CommandField = DeviceCommand extends infer C ? (C extends unknown ? keyof C : never) : never;

/**
 * Every field of every command. A Record, so a field added to DeviceCommand fails the type
 * check here until it is listed: a command that differs only in an unlisted field would
 * otherwise be sent the frame of the one before.
 */
const COMMAND_FIELDS = Object.keys({
  type: true,
  taskId: true,
  name: true,
  text: true,
  repeat: true,
  cause: true,
} satisfies Record<CommandField, true>) as CommandField[];

function sameCommand(a: DeviceCommand, b: DeviceCommand): boolean {
  for (const field of COMMAND_FIELDS) {
    if ((a as Record<string, unknown>)[field] !== (b as Record<string, unknown>)[field])
      return false;
  }
  return true;
}

/**
 * Keeps the opening of the last command's frame: the engine makes a command object per
 * device, equal from one device to the next of a fan-out (and `at` changes only between its
 * chunks), so comparing the fields finds the frame already made.
 */
export class CommandFrames {
  #last: { command: DeviceCommand; at: number; opening: FrameOpening } | undefined;

  opening(command: DeviceCommand, at: number): FrameOpening {
    const last = this.#last;
    if (last !== undefined && last.at === at && sameCommand(last.command, command))
      return last.opening;
    const opening = frameOpening(toFrame(command, at));
    this.#last = { command, at, opening };
    return opening;
  }
}
