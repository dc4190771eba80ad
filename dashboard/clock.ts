/** The stub's clock on the page: read forward between messages, and drawn in the header. */
import type { ClockView } from '../protocol/control-api.schema.ts';
import { tickTimeLeft } from './alerts.ts';
import { byId, clockTime, setText } from './dom.ts';

/**
 * The stub's clock now, in ms: a virtual clock as told, a running one read forward from
 * `arrivedAt` (performance.now() when `clock` came).
 */
export function readClock(clock: ClockView | undefined, arrivedAt: number): number {
  if (!clock) return 0;
  if (clock.mode === 'virtual') return clock.now_ms;
  return clock.now_ms + (performance.now() - arrivedAt) * clock.scale;
}

/** The header's clock, its buttons, and each alert's time left, at `nowMs`. */
export function renderClock(clock: ClockView, nowMs: number): void {
  const now = new Date(nowMs).toISOString();
  setText(byId('clock-mode'), `${clock.mode} clock`);
  setText(byId('clock-now'), `${now.slice(0, 10)} ${now.slice(11, 19)}`);
  byId('clock-now').setAttribute('datetime', now);
  byId('clock-speed').hidden = clock.mode !== 'scaled';
  setText(byId('clock-speed'), `×${clock.scale}`);
  byId('clock-buttons').hidden = clock.mode !== 'virtual';
  byId<HTMLButtonElement>('advance-next').disabled = clock.next_due_at === null;
  byId('advance-next').title = clock.next_due_at
    ? `to ${clockTime(clock.next_due_at)}`
    : 'no timer is set';
  tickTimeLeft(byId('tasks'), nowMs);
}
