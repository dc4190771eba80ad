/**
 * What a scenario made from a recording expects: the account's events (RS8, RS11) and what
 * each badge heard (RS17), with comments where something was inferred.
 */
import type { RecordLine } from '../../../protocol/recording.schema.ts';
import type { AnalyticEvent } from '../../../protocol/service-api.schema.ts';
import type { EventMatcher, HeardExpectation } from '../../format/expectations.schema.ts';
import { heardOnReplay } from './recording-heard.ts';
import type { RecordTiming } from './recording-timing.ts';
import type { Comments } from './recording-yaml.ts';

/** What the expectations need of the replay: its instants, its badges and its task names. */
export interface ReplayView {
  /** An instant (µs) as a step writes it, from the start. */
  at(instant: number): string;
  /** The ms from the start of an instant (µs). */
  offsetMs(instant: number): number;
  readonly badges: readonly string[];
  ref(deviceId: string): string;
  readonly taskNames: ReadonlyMap<string, string>;
}

/**
 * The account's events as a replay on the virtual clock gives them (RS11): each at the instant
 * of what caused it, in that order, then as the stub recorded them.
 */
export function expectedEvents(
  records: RecordLine[],
  subscriberId: string,
  timing: RecordTiming,
  replay: ReplayView,
): { items: EventMatcher[]; comments: Comments } {
  const expected = records
    .filter((r) => r.kind === 'event' && r.account === subscriberId)
    .map((record) => ({ record, ...timing.expected(record) }))
    .sort((a, b) => a.at - b.at || a.record.seq - b.record.seq);
  const comments: Comments = new Map();
  expected.forEach(({ why, record }, i) => {
    if (why) comments.set(`expect.events.items.${i}`, [`recorded at ${record.time}: ${why}`]);
  });
  const items = expected.map(({ record, at }) =>
    eventMatcher(record.event as AnalyticEvent, replay.at(at), replay.taskNames),
  );
  return { items, comments };
}

function eventMatcher(
  event: AnalyticEvent,
  at: string,
  taskNames: ReadonlyMap<string, string>,
): EventMatcher {
  const task = taskNames.get(event.task.id);
  return {
    type: event.content.type,
    ...(task ? { task } : event.task.name ? { name: event.task.name } : {}),
    ...(event.content.device === undefined ? {} : { device: event.content.device }),
    ...(event.content.status === undefined ? {} : { status: event.content.status }),
    at,
  };
}

/**
 * What each badge hears on the replay, by its name in the steps (RS17); none when the
 * recording kept no commands (one made before they were recorded): nothing to say then.
 */
export function expectedHeard(
  records: RecordLine[],
  timing: RecordTiming,
  replay: ReplayView,
  endMs: number,
): Record<string, HeardExpectation> | undefined {
  if (replay.badges.length === 0 || !records.some((r) => r.kind === 'command')) return undefined;
  const heard = heardOnReplay(
    records,
    replay.badges,
    (record) => replay.offsetMs(timing.acted(record).at),
    replay.taskNames,
    endMs,
  );
  return Object.fromEntries([...heard].map(([device, clips]) => [replay.ref(device), clips]));
}
