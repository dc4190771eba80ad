/**
 * What a stream message adds to the timeline: its events, what the badges heard and when
 * they went offline or came back (UI12, UI17), and a line for whatever the stub or the
 * stream no longer had to give. A snapshot and an update give the same entries for the same
 * history, so a reloaded page draws what it drew live.
 */
import type {
  LiveEvent,
  LiveHeardLine,
  LivePresenceLine,
  LiveSnapshot,
  LiveUpdate,
} from '../protocol/live-stream.schema.ts';
import { eventEntry, heardEntry, presenceEntry, type TimelineEntry } from './timeline.ts';

/** How the page names what a message mentions by id. */
export interface Names {
  /** A device's user (its id when the page does not know it). */
  user(deviceId: string): string;
  /** An alert's text, when its task is among those shown. */
  notification(taskId: string): string | undefined;
}

function lineEntries(
  events: LiveEvent[],
  heard: LiveHeardLine[],
  presence: LivePresenceLine[],
  names: Names,
): TimelineEntry[] {
  return [
    ...events.map((e) => eventEntry(e, names.notification(e.event.task.id))),
    ...heard.map((line) => heardEntry(line, names.user(line.device_id))),
    ...presence.map((line) => presenceEntry(line, names.user(line.device_id))),
  ];
}

function droppedEntry(at: string, text: string): TimelineEntry {
  return { at, lane: 'alert', kind: 'dropped', text };
}

/** What happened before the page opened (or was reloaded), as far as the stub keeps it. */
export function snapshotEntries(snapshot: LiveSnapshot, names: Names): TimelineEntry[] {
  const entries = lineEntries(snapshot.events, snapshot.heard, snapshot.presence, names);
  // Where the kept history begins: what the stub let go came before it.
  const oldest = entries.map((e) => e.at).sort()[0] ?? snapshot.clock.now;
  if (snapshot.heard_dropped > 0)
    entries.push(
      droppedEntry(
        oldest,
        `${snapshot.heard_dropped} older plays and speech not shown (the stub keeps the newest ${snapshot.heard.length})`,
      ),
    );
  if (snapshot.presence_dropped > 0)
    entries.push(
      droppedEntry(
        oldest,
        `${snapshot.presence_dropped} older offline and online changes not shown (the stub keeps the newest ${snapshot.presence.length})`,
      ),
    );
  return entries;
}

/** What happened since the last message. */
export function updateEntries(update: LiveUpdate, names: Names): TimelineEntry[] {
  const entries = lineEntries(update.events, update.heard, update.presence, names);
  const now = update.clock.now;
  if (update.heard_dropped > 0)
    entries.push(
      droppedEntry(
        now,
        `${update.heard_dropped} plays and speech not shown (more than the stream keeps at once)`,
      ),
    );
  if (update.presence_dropped > 0)
    entries.push(
      droppedEntry(
        now,
        `${update.presence_dropped} offline and online changes not shown (more than the stream keeps at once)`,
      ),
    );
  if (update.events_dropped > 0)
    entries.push(
      droppedEntry(now, `${update.events_dropped} events missed (the page fell behind)`),
    );
  return entries;
}
