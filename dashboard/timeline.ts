/**
 * The timeline: analytic events as they arrive and what each badge heard and did (plays,
 * speech, going offline and back), on the stub's clock, newest first. At most
 * TIMELINE_MAX entries are kept; a filter shows one badge's story or one alert's.
 */
import type { LiveEvent, LiveHeardLine, LivePresenceLine } from '../protocol/live-stream.schema.ts';
import { clockTime, el } from './dom.ts';

export const TIMELINE_MAX = 500;
/** Lanes drawn at most (the alert's and the badges' that appear first); the log lists all. */
const LANES_MAX = 24;

const HEARD_VERB = { play: 'plays', broadcast: 'hears the broadcast', speak: 'says' } as const;

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

/**
 * A play, broadcast or speech the stub sent, as an entry: the stream tells each one (UI12),
 * so the repeats inside a clock jump are all on the timeline, not only the last.
 */
export function heardEntry(line: LiveHeardLine, user: string): TimelineEntry {
  return {
    at: line.at,
    lane: user,
    kind: `heard-${line.kind}`,
    text: `${HEARD_VERB[line.kind]} “${line.text}”`,
  };
}

/**
 * A badge going offline or coming back, as an entry at the instant the stub saw it: told by
 * the stream as it happens and kept in its snapshot, so a reload draws the same (UI17).
 */
export function presenceEntry(line: LivePresenceLine, user: string): TimelineEntry {
  return {
    at: line.at,
    lane: user,
    kind: line.online ? 'online' : 'offline',
    text: line.online ? 'came online' : 'went offline',
  };
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

/**
 * The same entries as lanes on one time axis: one row for the alerts, one a badge, each entry
 * a mark placed by its instant between the first entry and `now`. A picture of the log below
 * it (which screen readers read instead: the lanes are hidden from them).
 */
export function renderLanes(
  container: HTMLElement,
  entries: TimelineEntry[],
  lane: string,
  now: string,
): void {
  const shown = lane === '' ? entries : entries.filter((e) => e.lane === lane);
  if (shown.length === 0) {
    container.replaceChildren();
    return;
  }
  const start = Date.parse(shown[0]!.at);
  const end = Math.max(Date.parse(now), Date.parse(shown.at(-1)!.at), start + 1_000);
  const names = [...new Set(['alert', ...shown.map((e) => e.lane)])].filter(
    (name) => name !== 'alert' || shown.some((e) => e.lane === 'alert'),
  );
  const at = (iso: string) => `${((Date.parse(iso) - start) / (end - start)) * 100}%`;
  const rows = names.slice(0, LANES_MAX).map((name) => {
    const track = el('div', { class: 'track' });
    track.append(...offlineSpans(shown, name, new Date(end).toISOString(), at));
    for (const entry of shown) {
      if (entry.lane !== name) continue;
      const mark = el('span', {
        class: `mark ${entry.kind}`,
        title: `${clockTime(entry.at)} ${entry.text}`,
      });
      mark.style.left = at(entry.at);
      track.append(mark);
    }
    return el(
      'li',
      { class: 'lane-row', 'data-lane': name },
      el('span', { class: 'lane-name', text: name }),
      track,
    );
  });
  const more = names.length - rows.length;
  const today = shown[0]!.at.slice(0, 10);
  container.replaceChildren(
    el('ol', { class: 'lane-rows' }, ...rows),
    el(
      'p',
      { class: 'axis' },
      el('time', { text: clockTime(shown[0]!.at, today) }),
      more > 0 ? el('span', { text: `+${more} more badges (pick one above)` }) : null,
      el('time', { text: clockTime(new Date(end).toISOString(), today) }),
    ),
  );
}

/**
 * Each stretch a badge was offline, from its going offline to its coming back (or to `end`
 * while it still is), as a band under its lane's marks.
 */
function offlineSpans(
  entries: TimelineEntry[],
  lane: string,
  end: string,
  at: (iso: string) => string,
): HTMLElement[] {
  const spans: HTMLElement[] = [];
  let since: string | undefined;
  const span = (from: string, to: string) => {
    const band = el('span', {
      class: 'offline-span',
      title: `offline ${clockTime(from)}–${clockTime(to)}`,
    });
    band.style.left = at(from);
    band.style.width = `calc(${at(to)} - ${at(from)})`;
    spans.push(band);
  };
  for (const entry of entries) {
    if (entry.lane !== lane) continue;
    if (entry.kind === 'offline') since ??= entry.at;
    else if (entry.kind === 'online' && since !== undefined) {
      span(since, entry.at);
      since = undefined;
    }
  }
  if (since !== undefined) span(since, end);
  return spans;
}
