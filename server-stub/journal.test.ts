/** The journal's core without HTTP: the mask rule case by case, faults, the cap. */
import { execFileSync } from 'node:child_process';
import { describe, expect, test } from 'vitest';
import { type ReceivedRequest, RequestJournal } from './journal.ts';
import { MASK, maskAuthorization, maskSecrets, maskText } from './journal-mask.ts';

const received = (over: Partial<ReceivedRequest> = {}): ReceivedRequest => ({
  arrivedAt: Date.parse('2026-01-01T00:00:00Z'),
  method: 'POST',
  path: '/x',
  query: {},
  headers: {},
  account: null,
  status: 200,
  durationMs: 1,
  ...over,
});

describe('the mask rule', () => {
  test('the Authorization header keeps its scheme word only', () => {
    expect(maskAuthorization('ServiceApiKey demo-api-key')).toBe('ServiceApiKey ***');
    expect(maskAuthorization('Bearer at_123')).toBe('Bearer ***');
    expect(maskAuthorization('just-a-key')).toBe(MASK);
  });

  test('every secret-named field, at any depth, whatever its case or separators', () => {
    const masked = maskSecrets({
      api_key: 'k1',
      apiKey: 'k2',
      'Api-Key': 'k3',
      client_secret: 's',
      refresh_token: 'rt',
      access_token: 'at',
      id_token: 'it',
      devices: [{ id: 'd1', key: 'device-key' }],
      nested: { password: 'p', token: 't' },
      notification: 'kept',
      empty_token: '',
    });
    expect(masked).toEqual({
      api_key: MASK,
      apiKey: MASK,
      'Api-Key': MASK,
      client_secret: MASK,
      refresh_token: MASK,
      access_token: MASK,
      id_token: MASK,
      devices: [{ id: 'd1', key: MASK }],
      nested: { password: MASK, token: MASK },
      notification: 'kept',
      empty_token: '',
    });
  });

  test('a __proto__ key is copied as data, never set as the prototype', () => {
    const masked = maskSecrets(JSON.parse('{"__proto__": {"token": "t"}}')) as object;
    expect(Object.getPrototypeOf(masked)).toBe(Object.prototype);
    expect(Object.hasOwn(masked, '__proto__')).toBe(true);
  });

  test('text that could not be parsed: JSON pairs and form pairs', () => {
    expect(maskText('{"refresh_token": "rt-1", "client_id": "cli"')).toBe(
      '{"refresh_token": "***", "client_id": "cli"',
    );
    expect(maskText('grant_type=refresh_token&refresh_token=rt-1&client_secret=s')).toBe(
      'grant_type=refresh_token&refresh_token=***&client_secret=***',
    );
  });
});

describe('the journal', () => {
  test('a fault the faults hook marked is shown, and filtered on', () => {
    const journal = new RequestJournal(() => 10);
    journal.record(received());
    journal.record(
      received({ status: null, fault: { id: 'f1', kind: 'reset', letThrough: false } }),
    );
    expect(journal.list({ fault: true }).entries).toMatchObject([
      { id: 2, status: null, fault: { id: 'f1', kind: 'reset', let_through: false } },
    ]);
    expect(journal.list({ fault: false }).entries.map((e) => e.id)).toEqual([1]);
  });

  test('the cap drops the oldest first and counts them; a lower cap applies at the next record', () => {
    let limit = 3;
    const journal = new RequestJournal(() => limit);
    for (let i = 0; i < 5; i++) journal.record(received());
    expect(journal.list()).toMatchObject({ dropped: 2, next: null });
    expect(journal.list().entries.map((e) => e.id)).toEqual([3, 4, 5]);
    limit = 1;
    journal.record(received());
    expect(journal.list()).toMatchObject({ dropped: 5, entries: [{ id: 6 }] });
  });

  test('an answer that says JSON is parsed and masked; one that is not JSON is kept as text', () => {
    const journal = new RequestJournal(() => 10);
    const json = journal.record(
      received({ answer: { text: '{"access_token":"at"}', as: 'json' } }),
    );
    expect(journal.entry(json)?.answer).toEqual({ access_token: MASK });
    const text = journal.record(received({ answer: { text: 'access_token=at', as: 'text' } }));
    expect(journal.entry(text)?.answer).toBe('access_token=***');
  });
});

describe('what the journal holds', () => {
  test('a long answer is kept as its first 8 KiB (a copy): 200 answers of 1 MiB hold a few MiB', () => {
    // In a process of its own, where a full GC can be asked for: the heap is read after one.
    const script = `
      import { RequestJournal } from ${JSON.stringify(new URL('./journal.ts', import.meta.url).href)};
      const journal = new RequestJournal(() => 1000);
      globalThis.gc();
      const before = process.memoryUsage().heapUsed;
      for (let i = 0; i < 200; i++) {
        const answer = JSON.stringify({ events: [{ n: i, text: 'x'.repeat(1 << 20) }] });
        journal.record({ arrivedAt: 0, method: 'GET', path: '/e', query: {}, headers: {},
          account: null, status: 200, durationMs: 1, answer: { text: answer, as: 'json' } });
      }
      globalThis.gc();
      const held = process.memoryUsage().heapUsed - before;
      const last = journal.list({ after: 199 }).entries[0];
      console.log(JSON.stringify({ held, size: journal.size, shown: last.answer.length, truncated: last.truncated }));
    `;
    const out = execFileSync(
      process.execPath,
      ['--expose-gc', '--import', 'tsx', '--input-type=module', '-e', script],
      { encoding: 'utf8' },
    );
    const { held, size, shown, truncated } = JSON.parse(out);
    expect({ size, shown, truncated }).toEqual({
      size: 200,
      shown: 8 * 1024,
      truncated: ['answer'],
    });
    // 200 × 8 KiB of text is 1.6 MB (3.2 MB as UTF-16); the answers themselves were 200 MiB.
    expect(held).toBeLessThan(8 * 1024 * 1024);
  });

  test('the same long answer again (a polled, cached GET events answer) shares one copy of its start', () => {
    const script = `
      import { RequestJournal } from ${JSON.stringify(new URL('./journal.ts', import.meta.url).href)};
      const journal = new RequestJournal(() => 1000);
      const cached = JSON.stringify({ events: 'y'.repeat(26 * 1024) });
      const record = (text) => journal.record({ arrivedAt: 0, method: 'GET', path: '/e', query: {},
        headers: {}, account: null, status: 200, durationMs: 1, answer: { text, as: 'json' } });
      record('{"warm":true}');
      globalThis.gc();
      const before = process.memoryUsage().heapUsed;
      for (let i = 0; i < 1000; i++) record(cached);
      globalThis.gc();
      const held = process.memoryUsage().heapUsed - before;
      const other = JSON.stringify({ events: 'z'.repeat(26 * 1024) });
      record(other);
      const [first, last] = [journal.list({ after: 1, limit: 1 }).entries[0], journal.list({ after: 1001 }).entries[0]];
      console.log(JSON.stringify({ held, first: first.answer.slice(0, 14), last: last.answer.slice(0, 14) }));
    `;
    const out = execFileSync(
      process.execPath,
      ['--expose-gc', '--import', 'tsx', '--input-type=module', '-e', script],
      { encoding: 'utf8' },
    );
    const { held, first, last } = JSON.parse(out);
    // Each entry shows the start of its own answer.
    expect({ first, last }).toEqual({ first: '{"events":"yyy', last: '{"events":"zzz' });
    // A copy a request would hold 1,000 × 8 KiB = 8 MB; shared, the entries alone (~0.2 MB).
    expect(held).toBeLessThan(1024 * 1024);
  });
});
