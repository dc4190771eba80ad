/**
 * What a badge reports after its hello, applied: a press of its button (a single tap
 * acknowledges) and its state (what it is doing, its battery and location). Both are recorded
 * in the session recording.
 */
import type { Static } from 'typebox';
import type { ButtonFrame, StateFrame } from '../protocol/device-frames.schema.ts';
import type { DeviceLiveState } from './device-live-state.ts';
import { EngineError } from './engine/engine-error.ts';
import { tapRecord } from './recorder.ts';
import type { StubCore } from './stub-core.ts';

/**
 * A press of a badge's button: a single tap acknowledges the task it names, or what the badge
 * plays; other taps are ignored, as on the real badge. Returns the engine's refusal, for the
 * error frame, or undefined.
 */
export function pressButton(
  core: StubCore,
  deviceId: string,
  button: Static<typeof ButtonFrame>,
): EngineError | undefined {
  if (button.taps !== 'single') return undefined;
  try {
    const outcome = button.task_id
      ? core.engine.acknowledge(deviceId, button.task_id)
      : core.engine.tap(deviceId);
    core.recorder.add('tap', { device: deviceId, via: 'badge', ...tapRecord(outcome) });
    return undefined;
  } catch (error) {
    if (!(error instanceof EngineError)) throw error;
    core.recorder.add('tap', { device: deviceId, via: 'badge', refused: error.code });
    return error;
  }
}

/** A badge's state report, into its live state; a new battery reading is recorded. */
export function reportState(
  core: StubCore,
  live: DeviceLiveState,
  deviceId: string,
  state: Static<typeof StateFrame>,
): void {
  live.state = state.state;
  const level = live.batteryLevel;
  const status = live.batteryStatus;
  if (state.battery_level !== undefined) live.batteryLevel = state.battery_level;
  if (state.battery_status !== undefined) live.batteryStatus = state.battery_status;
  // Only a new reading is worth a record: badges report their state on every play.
  if (level !== live.batteryLevel || status !== live.batteryStatus)
    core.recorder.add('battery', {
      device: deviceId,
      level: live.batteryLevel,
      status: live.batteryStatus,
    });
  if (state.location) live.location = { ...state.location, timestamp: core.clock.now() };
}
