/**
 * The timeline: analytic events as they arrive and what each badge heard and did (plays,
 * speech, going offline and back), on the stub's clock, newest first. At most
 * TIMELINE_MAX entries are kept; a filter shows one badge's story or one alert's.
 */
import type { LiveDevice, LiveEvent } from '../protocol/live-stream.schema.ts';
import { clockTime, el } from './dom.ts';

export const TIMELINE_MAX = 500;

export interface TimelineEntry {
  at: string;
  /** Who: a badge's user, or "alert". */
  lane: string;
  kind: string;
  text: string;
}

/** An analytic event as an entry; `notification` is the alert's text when the page knows it. */
export function eventEntry({ event }: LiveEvent, notification?: string): TimelineEntry {
  const { type, device, status } = event.content;
  const what =
    type === 'start'
      ? 'alert started'
      : type === 'acknowledged'
        ? 'acknowledged'
        : type === 'timed_out'
          ? 'timed out'
          : `alert ended${status ? ` (${status})` : ''}`;
  return {
    at: event.timestamp,
    lane: device ?? 'alert',
    kind: `event-${type}`,
    text:
      notification === undefined
        ? `${what} · task ${event.task.id}`
        : `${what} · “${notification}”`,
  };
}

/** What changed on a badge between two views of it, as timeline entries. */
export function deviceEntries(
  before: LiveDevice | undefined,
  after: LiveDevice,
  now: string,
): TimelineEntry[] {
  const entries: TimelineEntry[] = [];
  if (before && before.online !== after.online)
    entries.push({
      at: now,
      lane: after.user,
      kind: after.online ? 'online' : 'offline',
      text: after.online ? 'came online' : 'went offline',
    });
  const heard = after.heard;
  if (heard && (before?.heard?.at !== heard.at || before?.heard?.task_id !== heard.task_id))
    entries.push({
      at: heard.at,
      lane: after.user,
      kind: `heard-${heard.kind}`,
      text: `${heard.kind === 'speak' ? 'says' : 'plays'} “${heard.text}”`,
    });
  return entries;
}

export function renderTimeline(list: HTMLElement, entries: TimelineEntry[], lane: string): void {
  const shown = lane === '' ? entries : entries.filter((e) => e.lane === lane);
  const today = shown[0]?.at.slice(0, 10);
  list.replaceChildren(
    ...shown
      .slice(-200)
      .reverse()
      .map((e) =>
        el(
          'li',
          { class: e.kind },
          el('time', { datetime: e.at, text: clockTime(e.at, today) }),
          el('span', { class: 'lane', text: e.lane }),
          el('span', { class: 'what', text: e.text }),
        ),
      ),
  );
}
