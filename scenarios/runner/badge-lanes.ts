/** A badge's swimlane in the HTML report, read from its transcript and activity. */

import type { Badge } from '../../simulator/badge.ts';
import type { BadgeLane } from './scenario-report.ts';

/** A badge's swimlane: its transcript and its taps and network changes, from the start. */
export function laneOf(
  badge: Badge,
  transcript: Badge['transcript'],
  user: string,
  start: number,
  endMs: number,
  nameOf: Map<string, string>,
): BadgeLane {
  const clips = transcript.map((h) => ({
    at: Date.parse(h.at) - start,
    durationMs: h.duration_ms,
    kind: h.kind,
    text: h.text,
    ...(nameOf.has(h.task_id) ? { task: nameOf.get(h.task_id)! } : {}),
    ...(h.repeat === undefined ? {} : { repeat: h.repeat }),
    ...(h.cause === undefined ? {} : { cause: h.cause }),
    ...(h.cut ? { cut: h.cut } : {}),
  }));
  const taps: number[] = [];
  const offline: BadgeLane['offline'] = [];
  // A badge is offline until it is first welcomed (one told offline at the start never is).
  let offlineSince: number | undefined = 0;
  for (const { at, kind } of badge.activity) {
    const ms = Date.parse(at) - start;
    if (kind === 'tap') taps.push(ms);
    else if (kind === 'offline') offlineSince ??= ms;
    else if (offlineSince !== undefined) {
      if (ms > offlineSince) offline.push({ from: Math.max(0, offlineSince), to: ms });
      offlineSince = undefined;
    }
  }
  if (offlineSince !== undefined && endMs > offlineSince)
    offline.push({ from: Math.max(0, offlineSince), to: endMs });
  return { device: badge.deviceId, user, clips, taps, offline };
}
