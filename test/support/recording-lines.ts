/** Records of a session recording as the stub writes them, for the tests of `badge-sim record`. */
import type { JournalEntry } from '../../protocol/journal.schema.ts';

/** A request to the account 100001 as the request journal keeps it (`time`: when it arrived). */
export function journalEntry(time: string, fields: Partial<JournalEntry>): JournalEntry {
  return {
    id: 1,
    time,
    method: 'GET',
    path: '/subscribers/100001/api/v1/events',
    query: {},
    headers: { authorization: 'ServiceApiKey ***' },
    body: null,
    account: '100001',
    status: 200,
    answer: null,
    duration_ms: 1,
    fault: null,
    ...fields,
  };
}
