/**
 * The field's alerts as its events tell them (by `task.id`: start, acknowledgements, how each
 * ended), each matched to the body sent when the journal or an alerts file gives it.
 */
import { ownValue } from '../../../input/own.ts';
import type { FieldEvent, SentAlert } from './read-export.ts';

/** One alert of the field, as its events tell it. */
export interface FieldAlert {
  /** The `as` of its step: its name, numbered from the second alert of that name. */
  alias: string;
  taskId: string;
  name: string;
  startMs: number;
  /** Its `start` is in the export; else it began before the export (posted at its first event). */
  startSeen: boolean;
  /** How it ended: by quorum, its timeout, a cancel, or not in the export. */
  outcome: 'quorum' | 'timed_out' | 'cancelled' | 'open';
  endMs?: number;
  /** The `end` event's status (none from a table). */
  endStatus?: string;
  /** Who acknowledged and when; `order` is the event's place in the export. */
  acks: { user: string; atMs: number; order: number }[];
  sent?: SentAlert;
}

/** What the events cannot tell and was guessed: the path of its node in the scenario, and why. */
export interface Guess {
  path: (string | number)[];
  /** Written as a YAML comment above that node. */
  comment: string;
}

/** The field's alerts, by `task.id`, in order of their first event. */
export function fieldAlerts(
  events: FieldEvent[],
  msOf: (e: FieldEvent) => number,
  toleranceMs: number,
): FieldAlert[] {
  const byId = new Map<string, FieldAlert>();
  const perName = new Map<string, number>();
  for (const [order, e] of events.entries()) {
    const { task, content } = e.event;
    let alert = byId.get(task.id);
    if (!alert) {
      const n = (perName.get(task.name) ?? 0) + 1;
      perName.set(task.name, n);
      alert = {
        alias: `${task.name || '(no name)'}${n === 1 ? '' : ` #${n}`}`,
        taskId: task.id,
        name: task.name,
        startMs: msOf(e),
        startSeen: false,
        outcome: 'open',
        acks: [],
      };
      byId.set(task.id, alert);
    }
    if (content.type === 'start') {
      alert.startMs = msOf(e);
      alert.startSeen = true;
    }
    if (content.type === 'acknowledged' && content.device)
      alert.acks.push({ user: content.device, atMs: msOf(e), order });
    if (content.type === 'timed_out') alert.outcome = 'timed_out';
    if (content.type === 'end') {
      alert.endMs = msOf(e);
      alert.endStatus = content.status;
      if (alert.outcome !== 'timed_out')
        alert.outcome = endOutcome(alert, content.status, toleranceMs);
    }
  }
  return [...byId.values()];
}

/**
 * An `end` without `timed_out` before it (FB2, FB10): `cancelled` says so; otherwise (`normal`,
 * or a table row without status) a quorum when its last acknowledgement is at that instant
 * (within the tolerance), else a cancel: no quorum ends an alert between two acknowledgements.
 */
function endOutcome(
  alert: FieldAlert,
  status: string | undefined,
  toleranceMs: number,
): FieldAlert['outcome'] {
  if (status === 'cancelled') return 'cancelled';
  const last = alert.acks.at(-1);
  return last && alert.endMs! - last.atMs <= toleranceMs ? 'quorum' : 'cancelled';
}

/**
 * Each alert's body: the one the journal answered with its task id, else the first unused one
 * sent with its name closest in time to its start (decision FB3).
 */
export function matchSentAlerts(alerts: FieldAlert[], sent: SentAlert[], origin: number): void {
  const unused = new Set(sent);
  const gap = (s: SentAlert, alert: FieldAlert) =>
    Math.abs((s.micros - origin) / 1000 - alert.startMs);
  for (const alert of alerts) {
    let best = sent.find((s) => s.taskId === alert.taskId);
    if (!best) {
      for (const s of unused) {
        const name = typeof s.body.name === 'string' ? s.body.name : 'alerts';
        if (name !== alert.name || s.taskId !== undefined) continue;
        if (!best || gap(s, alert) < gap(best, alert)) best = s;
      }
    }
    if (best) {
      alert.sent = best;
      unused.delete(best);
    }
  }
}

/** The groups a body sent names, when it names them as a list of strings. */
export function sentGroupsOf(alert: FieldAlert): string[] | undefined {
  const groups = ownValue(alert.sent?.body, 'groups');
  return Array.isArray(groups) && groups.length > 0 && groups.every((g) => typeof g === 'string')
    ? groups
    : undefined;
}
