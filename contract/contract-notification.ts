import { describe, expect, test } from 'vitest';
import type { ContractSession } from './contract-session.ts';

/** The notification interface as the spec writes it: alerts, events, broadcasts. */
export function notificationContract(s: ContractSession): void {
  const { api, alert, eventsOf } = s;
  describe('notification interface (spec)', () => {
    test('POST alerts answers 200 with exactly {task_id} and a location header', async () => {
      const answer = await alert({ notification: 'Contract check: please ignore', timeout: 60 });
      expect(answer.status).toBe(200);
      expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
      expect(Object.keys(answer.body)).toEqual(['task_id']);
      expect(answer.body.task_id).toEqual(expect.any(String));
      expect(answer.headers.get('location')).toBe(
        `/subscribers/${s.t.subscriberId}/api/v1/alerts/${answer.body.task_id}`,
      );
    });

    test('GET events answers an array of events with the spec’s fields; an alert’s start carries its task_id and name', async () => {
      const answer = await alert({
        notification: 'Contract check: events',
        name: 'contract-check',
        timeout: 60,
      });
      const events = await eventsOf(answer.body.task_id);
      const start = events.find((e) => e.content.type === 'start');
      expect(start, 'the start event of the alert just created').toBeDefined();
      expect(start.task.name).toBe('contract-check');
    });

    test('an alert without a name carries name "alerts" on its events', async () => {
      const answer = await alert({ notification: 'Contract check: default name', timeout: 60 });
      const mine = await eventsOf(answer.body.task_id);
      expect(mine.length).toBeGreaterThan(0);
      for (const event of mine) expect(event.task.name).toBe('alerts');
    });

    test.each([
      ['events?limit=1000', 'a limit above 100'],
      ['events', 'no limit (default 100)'],
    ])('GET %s answers at most 100 events, exactly 100 when there are more (%s)', async (query) => {
      const answer = await api('GET', query);
      expect(answer.status).toBe(200);
      expect(answer.body.length).toBeLessThanOrEqual(100);
      // More events than this page? Then the page must have been full. (A suite run fills
      // an account with more than 100; see seedEvents in the repository's tests.)
      const seen = new Set((answer.body as any[]).map((e) => e.event_id));
      const last = answer.body.at(-1);
      const next = last
        ? await api('GET', `events?limit=100&oldest=${encodeURIComponent(last.timestamp)}`)
        : undefined;
      const more = (next?.body ?? []).some((e: any) => !seen.has(e.event_id));
      if (more) expect(answer.body.length).toBe(100);
    });

    test('GET events with oldest answers nothing older', async () => {
      await alert({ notification: 'Contract check: oldest', timeout: 60 });
      const all = (await api('GET', 'events?limit=100')).body as any[];
      const oldest = all.at(-1)!.timestamp as string;
      const answer = await api('GET', `events?oldest=${encodeURIComponent(oldest)}`);
      expect(answer.status).toBe(200);
      for (const event of answer.body)
        expect(Date.parse(event.timestamp)).toBeGreaterThanOrEqual(Date.parse(oldest) - 1);
    });

    test('DELETE alerts/{task_id} of a running alert succeeds', async () => {
      const alerted = await alert({ notification: 'Contract check: cancel', timeout: 60 });
      const answer = await api('DELETE', `alerts/${alerted.body.task_id}`);
      expect(answer.status).toBeGreaterThanOrEqual(200);
      expect(answer.status).toBeLessThan(300);
    });

    test('POST broadcasts succeeds', async () => {
      const answer = await api('POST', 'broadcasts', {
        notification: 'Contract check: broadcast',
        groups: [s.t.group],
      });
      expect(answer.status).toBeGreaterThanOrEqual(200);
      expect(answer.status).toBeLessThan(300);
    });
  });
}
