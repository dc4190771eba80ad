/**
 * What `StubControlClient.snapshot()` asks for, as `GET /_stub/snapshot`'s query (WS6, WS7), and
 * the type of what it answers: kept apart so the control client stays within its size.
 */

export type { WorldSnapshot } from '../protocol/snapshot.schema.ts';

export interface SnapshotOptions {
  /** `omit`: keys and tokens replaced by a placeholder, to share; such a snapshot does not restore (WS6). */
  secrets?: 'include' | 'omit';
  /**
   * What happened, to read: the journal, the recording (WS7); a restore ignores them. `badges`:
   * those the stub runs (`--badges`), which a stub started from the file carries on (WS24).
   */
  include?: readonly ('journal' | 'recording' | 'badges')[];
}

/** The query string (with its `?`, or empty) of a snapshot asked for with `options`. */
export function snapshotQuery({ secrets, include }: SnapshotOptions): string {
  const query = new URLSearchParams();
  if (secrets !== undefined) query.set('secrets', secrets);
  if (include !== undefined && include.length > 0) query.set('include', include.join(','));
  const text = query.toString();
  return text === '' ? '' : `?${text}`;
}
