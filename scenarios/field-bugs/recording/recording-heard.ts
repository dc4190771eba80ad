/**
 * What each badge of a recorded session will hear on a replay (decision RS17): the recording
 * keeps every command the stub sent a connected badge (`command` records: play, broadcast,
 * speak, stop, with the devices they went to); a badge plays them one at a time, in order, as its machine does
 * (`simulator/badge.machine.ts`): what arrives while a clip plays waits its turn, a stop cuts
 * its alert (heard, cut) and drops that alert's waiting plays, going offline drops everything.
 * Clip lengths are the estimate a scenario's badges use (`EstimateTts`), so the list is what
 * the replay's badges hear, not the live ones (whose engine may differ).
 */
import type { RecordLine } from '../../../protocol/recording.schema.ts';
import { EstimateTts } from '../../../simulator/tts/engine.ts';
import type { HeardExpectation, HeardMatcher } from '../../format/expectations.schema.ts';

/** A clip a badge will hear: its kind as `heard:` writes it, its text, why, and its task. */
interface Clip {
  kind: 'alert' | 'broadcast' | 'speech';
  text: string;
  cause?: string;
  task: string;
}

/** What reaches one badge, at an instant (ms from the start): a command, or its going offline. */
interface Arrival {
  at: number;
  command: string;
  task: string;
  text?: string;
  cause?: string;
}

const CLIP_KINDS: Record<string, Clip['kind']> = {
  play: 'alert',
  broadcast: 'broadcast',
  speak: 'speech',
};

const tts = new EstimateTts();

/**
 * For each device that runs a badge, the clips it hears, in order: `exactly` these, each with
 * its kind, text, cause (speech) and task (the `as` of its alert step, when it has one).
 * `offsetMs` turns a record into its instant on the replay (ms from the start); what still
 * waits at `endMs`, the scenario's end, is not heard.
 */
export function heardOnReplay(
  records: readonly RecordLine[],
  badges: readonly string[],
  offsetMs: (record: RecordLine) => number,
  taskNames: ReadonlyMap<string, string>,
  endMs: number,
): Map<string, HeardExpectation> {
  const arrivals = new Map(badges.map((device) => [device, [] as Arrival[]]));
  for (const record of records) {
    if (record.kind === 'close') {
      arrivals
        .get(record.device as string)
        ?.push({ at: offsetMs(record), command: 'offline', task: '' });
      continue;
    }
    if (record.kind !== 'command') continue;
    const arrival: Arrival = {
      at: offsetMs(record),
      command: String(record.command),
      task: String(record.task_id),
      ...(typeof record.text === 'string' ? { text: record.text } : {}),
      ...(typeof record.cause === 'string' ? { cause: record.cause } : {}),
    };
    for (const device of record.devices as string[]) arrivals.get(device)?.push(arrival);
  }
  const heard = new Map<string, HeardExpectation>();
  for (const [device, list] of arrivals)
    heard.set(device, {
      exactly: clipsHeard(list, endMs).map((clip) => matcherOf(clip, taskNames)),
    });
  return heard;
}

function matcherOf(clip: Clip, taskNames: ReadonlyMap<string, string>): HeardMatcher {
  const task = taskNames.get(clip.task);
  return {
    kind: clip.kind,
    text: clip.text,
    ...(clip.cause === undefined ? {} : { cause: clip.cause }),
    ...(task === undefined ? {} : { task }),
  };
}

/** The clips a badge starts, given what reaches it in order (as its machine plays them). */
function clipsHeard(arrivals: readonly Arrival[], endMs: number): Clip[] {
  const heard: Clip[] = [];
  let queue: Clip[] = [];
  let current: { clip: Clip; ends: number } | undefined;
  const start = (clip: Clip, at: number) => {
    current = { clip, ends: at + tts.duration(clip.text) };
    heard.push(clip);
  };
  const next = (at: number) => {
    current = undefined;
    const clip = queue.shift();
    if (clip) start(clip, at);
  };
  for (const arrival of arrivals) {
    // Clips that end by now have ended, each starting the next at its end (bounded by the queue).
    while (current && current.ends <= arrival.at) next(current.ends);
    const kind = CLIP_KINDS[arrival.command];
    if (kind !== undefined) {
      const clip: Clip = {
        kind,
        text: arrival.text ?? '',
        task: arrival.task,
        ...(kind === 'speech' && arrival.cause !== undefined ? { cause: arrival.cause } : {}),
      };
      if (current) queue.push(clip);
      else start(clip, arrival.at);
    } else if (arrival.command === 'stop') {
      const cuts = current?.clip.kind === 'alert' && current.clip.task === arrival.task;
      queue = queue.filter((c) => !(c.kind === 'alert' && c.task === arrival.task));
      if (cuts) next(arrival.at);
    } else if (arrival.command === 'offline') {
      current = undefined;
      queue = [];
    }
  }
  while (current && current.ends <= endMs) next(current.ends);
  return heard;
}
