import { describe, expect, test } from 'vitest';
import type { RecordLine } from '../../../protocol/recording.schema.ts';
import { EstimateTts } from '../../../simulator/tts/engine.ts';
import { heardOnReplay } from './recording-heard.ts';

const ADA = '350000000000001';
const BEN = '350000000000002';
let seq = 0;
/** A record at `ms` from the start; `heardOnReplay` is given the instant as the offset. */
function record(ms: number, kind: string, fields: Record<string, unknown>): RecordLine {
  return { seq: ++seq, time: `t${ms}`, kind, at: ms, ...fields } as unknown as RecordLine;
}
const command = (ms: number, device: string, fields: Record<string, unknown>) =>
  record(ms, 'command', { devices: [device], ...fields });
const heard = (records: RecordLine[], endMs = 100_000) =>
  heardOnReplay(records, [ADA, BEN], (r) => r.at as number, new Map([['t1', 'spill-1']]), endMs);
/** How long a badge of a scenario plays `text`. */
const lasts = (text: string) => new EstimateTts().duration(text);

describe('what each badge of a recorded session hears on a replay (RS17)', () => {
  test('alerts, repeats, speech and broadcasts in the order played, each with its task and cause', () => {
    const result = heard([
      // One record for a command sent to several badges in one turn.
      record(0, 'command', {
        devices: [ADA, BEN],
        command: 'play',
        task_id: 't1',
        text: 'Spill',
        repeat: 0,
      }),
      command(30_000, ADA, { command: 'play', task_id: 't1', text: 'Spill', repeat: 1 }),
      command(31_000, ADA, { command: 'stop', task_id: 't1', cause: 'acknowledged' }),
      command(31_000, ADA, { command: 'speak', task_id: 't1', text: 'Thanks', cause: 'on_ack' }),
      command(31_000, BEN, { command: 'stop', task_id: 't1', cause: 'quorum' }),
      command(40_000, BEN, { command: 'broadcast', task_id: 'b1', text: 'Visitors' }),
    ]);
    expect(result.get(ADA)).toEqual({
      exactly: [
        { kind: 'alert', text: 'Spill', task: 'spill-1' },
        { kind: 'alert', text: 'Spill', task: 'spill-1' },
        { kind: 'speech', text: 'Thanks', cause: 'on_ack', task: 'spill-1' },
      ],
    });
    expect(result.get(BEN)).toEqual({
      exactly: [
        { kind: 'alert', text: 'Spill', task: 'spill-1' },
        { kind: 'broadcast', text: 'Visitors' },
      ],
    });
  });

  test('what arrives while a clip plays waits for it; a stop drops its waiting plays, not speech', () => {
    const long = 'Visitors at the front desk';
    const result = heard([
      command(0, ADA, { command: 'broadcast', task_id: 'b1', text: long }),
      command(10, ADA, { command: 'play', task_id: 't1', text: 'Spill', repeat: 0 }),
      command(20, ADA, { command: 'play', task_id: 't2', text: 'Grey', repeat: 0 }),
      // Cancelled while still waiting behind the broadcast: never heard.
      command(30, ADA, { command: 'stop', task_id: 't1', cause: 'cancelled' }),
      command(40, ADA, { command: 'speak', task_id: 't1', text: 'Sorry', cause: 'on_timeout' }),
    ]);
    expect(result.get(ADA)?.exactly?.map((m) => m.text)).toEqual([long, 'Grey', 'Sorry']);
    // The session ended before the broadcast did: what waited behind it was not heard.
    const cut = heard(
      [
        command(0, ADA, { command: 'broadcast', task_id: 'b1', text: long }),
        command(10, ADA, { command: 'play', task_id: 't2', text: 'Grey', repeat: 0 }),
      ],
      lasts(long) - 1,
    );
    expect(cut.get(ADA)?.exactly?.map((m) => m.text)).toEqual([long]);
  });

  test('a clip that has ended lets the next start at once; going offline drops what waits', () => {
    const result = heard([
      command(0, ADA, { command: 'play', task_id: 't1', text: 'Spill', repeat: 0 }),
      // Arrives as the first ends: it plays, it does not wait.
      command(lasts('Spill'), ADA, { command: 'play', task_id: 't2', text: 'Grey', repeat: 0 }),
      command(lasts('Spill') + 1, ADA, { command: 'broadcast', task_id: 'b', text: 'Later' }),
      record(lasts('Spill') + 2, 'close', { device: ADA }),
      // Nothing that came before the close plays after it.
      command(lasts('Spill') + 50_000, ADA, { command: 'speak', task_id: 't2', text: 'Back' }),
    ]);
    expect(result.get(ADA)?.exactly?.map((m) => m.text)).toEqual(['Spill', 'Grey', 'Back']);
    // A badge that was sent nothing heard nothing, and the scenario says so.
    expect(result.get(BEN)).toEqual({ exactly: [] });
  });
});
