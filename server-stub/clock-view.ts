import { formatTimestamp, type VirtualClock } from '../clock/clock.ts';
import type { ClockView } from '../protocol/control-api.schema.ts';

/** The clock as the control API and the live stream show it. */
export function clockView(clock: VirtualClock): ClockView {
  const state = clock.state;
  return {
    mode: state.mode,
    scale: state.scale,
    now: formatTimestamp(state.now),
    now_ms: state.now,
    pending_timers: state.pendingTimers,
    next_due_at: state.nextDueAt === null ? null : formatTimestamp(state.nextDueAt),
  };
}
