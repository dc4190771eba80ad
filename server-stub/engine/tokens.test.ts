/** The token store's memory (docs/decisions.md H7): long-expired tokens are forgotten. */
import { expect, test } from 'vitest';
import { VirtualClock } from '../../clock/clock.ts';
import { IdSource } from '../../protocol/ids.ts';
import {
  ACCESS_TOKEN_LIFETIME_MS,
  EXPIRED_TOKEN_RETENTION_MS,
  type IssuedTokens,
  TokenStore,
} from './tokens.ts';

function store() {
  const clock = new VirtualClock();
  const tokens = new TokenStore(clock, new IdSource(1));
  tokens.addRefreshToken('rt', '100001', 'pro');
  const exchange = () => {
    const issued = tokens.exchange('rt', 'pro', 'badge-sim-pro-sdk');
    if (typeof issued === 'string') throw new Error(issued);
    return issued.access_token;
  };
  return { clock, tokens, exchange };
}

test('an expired token is told apart for 7 days after it expired, exactly, then forgotten', async () => {
  const { clock, tokens, exchange } = store();
  const old = exchange();
  await clock.advanceBy(ACCESS_TOKEN_LIFETIME_MS + EXPIRED_TOKEN_RETENTION_MS);
  exchange(); // the boundary instant: 7 days after expiry, still known
  expect(tokens.authorise(old, 'pro')).toBe('expired');
  await clock.advanceBy(1);
  exchange();
  expect(tokens.authorise(old, 'pro')).toBe('unknown');
});

test('a stub that hands out tokens for weeks holds only the last 7 days and 2 hours of them', async () => {
  const { clock, tokens, exchange } = store();
  const hour = 3_600_000;
  for (let h = 0; h < 21 * 24; h++) {
    exchange();
    await clock.advanceBy(hour);
  }
  // One exchange an hour issues an access and an id token: 7 days + 2 h of them remain.
  expect(tokens.issuedCount).toBeLessThanOrEqual(2 * (7 * 24 + 2 + 1));
  const fresh = exchange();
  expect(tokens.authorise(fresh, 'pro')).toMatchObject({ subscriberId: '100001' });
});

test('without a seed, tokens come from crypto, not the id stream: the same forced stream gives the same ids and different tokens', () => {
  const start = new Uint8Array(16).fill(7);
  const issue = () => {
    const ids = new IdSource(undefined, start);
    const tokens = new TokenStore(new VirtualClock(), ids);
    tokens.addRefreshToken('rt', '100001', 'pro');
    const before = ids.eventId();
    const issued = tokens.exchange('rt', 'pro', 'badge-sim-pro-sdk');
    if (typeof issued === 'string') throw new Error(issued);
    const refresh = tokens.issueRefreshToken('100001', 'pro');
    // Issuing tokens took nothing from the stream: the next id is the stream's next.
    return { ids: [before, ids.eventId(), ids.taskId()], tokens: [issued, refresh] };
  };
  const one = issue();
  const two = issue();
  const alone = new IdSource(undefined, start);
  expect(one.ids).toEqual([alone.eventId(), alone.eventId(), alone.taskId()]);
  expect(two.ids).toEqual(one.ids);
  const [a, other] = [one.tokens[0] as IssuedTokens, two.tokens[0] as IssuedTokens];
  expect(other.access_token).not.toBe(a.access_token);
  expect(other.id_token).not.toBe(a.id_token);
  expect(two.tokens[1]).not.toBe(one.tokens[1]);
  // The same shapes and lengths as ever.
  expect(a.access_token).toMatch(/^at_[A-Za-z0-9]{44}$/);
  expect(a.id_token).toMatch(/^eyJhbGciOiJub25lIn0\.[0-9a-f]{32}\.$/);
  expect(one.tokens[1]).toMatch(/^rt_[A-Za-z0-9]{44}$/);
});

test('with a seed, tokens are drawn from the id stream as before: byte-identical run after run', () => {
  const ids = new IdSource(5);
  const tokens = new TokenStore(new VirtualClock(), ids);
  tokens.addRefreshToken('rt', '100001', 'pro');
  const issued = tokens.exchange('rt', 'pro', 'badge-sim-pro-sdk');
  if (typeof issued === 'string') throw new Error(issued);
  const stream = new IdSource(5);
  expect(issued.access_token).toBe(`at_${stream.taskId()}${stream.taskId()}`);
  expect(issued.id_token).toBe(`eyJhbGciOiJub25lIn0.${stream.eventId()}.`);
});
