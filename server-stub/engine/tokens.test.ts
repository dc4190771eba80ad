/** The token store's memory (docs/decisions.md H7): long-expired tokens are forgotten. */
import { expect, test } from 'vitest';
import { VirtualClock } from '../../protocol/clock.ts';
import { IdSource } from '../../protocol/ids.ts';
import { ACCESS_TOKEN_LIFETIME_MS, EXPIRED_TOKEN_RETENTION_MS, TokenStore } from './tokens.ts';

function store() {
  const clock = new VirtualClock();
  const tokens = new TokenStore(clock, new IdSource(1));
  tokens.addRefreshToken('rt', '100001', 'pro');
  const exchange = () => {
    const issued = tokens.exchange('rt', 'pro');
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
  expect(tokens.authorise(fresh, 'pro')).toEqual({ subscriberId: '100001' });
});
