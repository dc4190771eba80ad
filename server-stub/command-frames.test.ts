import { describe, expect, it } from 'vitest';
import { frameOpening, numbered } from '../protocol/numbered-frame.ts';
import { CommandFrames, toFrame } from './command-frames.ts';
import type { DeviceCommand } from './engine/device-command.ts';

const COMMANDS: DeviceCommand[] = [
  {
    type: 'play',
    taskId: 'task-1',
    name: 'Fire',
    text: 'Fire in "hall" B\n\u00e9\u2028',
    repeat: 0,
  },
  { type: 'play', taskId: 'task-1', name: 'Fire', text: 'Fire in hall B', repeat: 3 },
  { type: 'broadcast', taskId: 'task-2', text: 'Lunch \\ is ready' },
  { type: 'stop', taskId: 'task-1', cause: 'acknowledged' },
  { type: 'speak', taskId: 'task-1', text: 'Thanks', cause: 'on_ack' },
];

describe('command frames', () => {
  it('writes each command frame byte for byte as JSON.stringify of the frame with its seq', () => {
    const frames = new CommandFrames();
    for (const command of COMMANDS) {
      for (const seq of [0, 7, 123_456]) {
        const expected = JSON.stringify({ ...toFrame(command, 1_767_225_600_123), seq });
        expect(numbered(frames.opening(command, 1_767_225_600_123), seq)).toBe(expected);
        expect(numbered(frameOpening(toFrame(command, 1_767_225_600_123)), seq)).toBe(expected);
      }
    }
  });

  it('reuses the frame only for an equal command at the same instant', () => {
    const frames = new CommandFrames();
    const play: DeviceCommand = { type: 'play', taskId: 't', name: 'n', text: 'x', repeat: 0 };
    const first = frames.opening(play, 1000);
    // Another object with the same fields (the engine makes one per device): the same text.
    expect(frames.opening({ ...play }, 1000)).toBe(first);
    // Any field or the instant differing: its own frame.
    const variants: [DeviceCommand, number][] = [
      [{ ...play, repeat: 1 }, 1000],
      [{ ...play, text: 'y' }, 1000],
      [{ ...play, name: 'm' }, 1000],
      [{ ...play, taskId: 'u' }, 1000],
      [play, 1001],
      [{ type: 'broadcast', taskId: 't', text: 'x' }, 1000],
    ];
    for (const [command, at] of variants) {
      expect(numbered(frames.opening(command, at), 1)).toBe(
        JSON.stringify({ ...toFrame(command, at), seq: 1 }),
      );
    }
  });
});
