/**
 * A badge machine's transitions as a trace keeps them (`transition` records, TR5): read from
 * xstate's inspection, as coverage reads them (badge-coverage.ts), each with the badge's state
 * before and after, the event, the clip it plays or says and the clips waiting behind it.
 * Only a traced run gives a fleet this `inspect`: an untraced one pays nothing.
 */
import type { InspectionEvent } from 'xstate';
import type { BadgeContext, Clip } from './badge.machine.ts';

/** A clip as a trace names it. */
interface TracedClip {
  kind: string;
  task: string;
  text: string;
}

/** One transition of one badge's machine. */
export interface TracedTransition {
  device: string;
  /** The event taken (`PLAY`, `TAP`, `CLIP_ENDED`, …). */
  event: string;
  /** The state before (null for a badge's first) and after, as dotted paths (`online.playing`). */
  from: string | null;
  to: string;
  current: TracedClip | null;
  queue: TracedClip[];
}

/** A state value as a dotted path: `{ online: 'playing' }` is `online.playing`. */
function statePath(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value !== 'object' || value === null) return String(value);
  return Object.entries(value)
    .map(([key, inner]) => `${key}.${statePath(inner)}`)
    .join(',');
}

function tracedClip(clip: Clip): TracedClip {
  return { kind: clip.kind, task: clip.taskId, text: clip.text };
}

/** An `inspect` for a fleet's badges that tells `sink` of each transition, per badge. */
export function transitionInspector(
  sink: (transition: TracedTransition) => void,
): (event: InspectionEvent) => void {
  const states = new Map<string, string>();
  return (inspection) => {
    if (inspection.type !== '@xstate.microstep') return;
    const { snapshot, event } = inspection as unknown as {
      snapshot: { value: unknown; context: BadgeContext };
      event: { type: string };
    };
    const { context } = snapshot;
    const to = statePath(snapshot.value);
    const from = states.get(context.deviceId) ?? null;
    states.set(context.deviceId, to);
    sink({
      device: context.deviceId,
      event: event.type,
      from,
      to,
      current: context.current && tracedClip(context.current),
      queue: context.queue.map(tracedClip),
    });
  };
}
