import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { StateReport } from './badge.machine.ts';
import { BadgeTelemetry, TELEMETRY_MAX_WAIT_MS, TELEMETRY_QUIET_MS } from './badge-telemetry.ts';
import type { BadgeLink } from './transport.ts';

/** A link in real time (no `handled` answers) that keeps what it was given to send. */
function realTimeLink(sent: StateReport[]): BadgeLink {
  return { answerFrames: false, send: (frame: StateReport) => sent.push(frame) > 0 } as BadgeLink;
}

const playing = { type: 'state', state: 'playing' } as StateReport;
const idle = { type: 'state', state: 'idle' } as StateReport;

describe('state reports in real time (decision D18)', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('a lone report goes once the badges have been quiet for 250 ms, the latest of it only', () => {
    const sent: StateReport[] = [];
    const telemetry = new BadgeTelemetry(realTimeLink(sent));
    telemetry.report(playing);
    telemetry.report(idle);
    vi.advanceTimersByTime(TELEMETRY_QUIET_MS - 1);
    expect(sent).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(sent).toEqual([idle]);
  });

  it('while the badges keep reporting (a fan-out), reports wait, then go together', () => {
    const sent: StateReport[] = [];
    const badges = Array.from({ length: 4 }, () => new BadgeTelemetry(realTimeLink(sent)));
    // A report every 100 ms from one badge or another: never 250 ms of quiet.
    for (let i = 0; i < 6; i++) {
      badges[i % 4]!.report(playing);
      vi.advanceTimersByTime(100);
    }
    expect(sent).toEqual([]);
    // 600 ms in; the last report was 100 ms ago: 150 ms more of quiet and all four go.
    vi.advanceTimersByTime(TELEMETRY_QUIET_MS - 100 - 1);
    expect(sent).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(sent).toHaveLength(4);
  });

  it('never waits longer than 1 s after the first waiting report, however busy the badges are', () => {
    const sent: StateReport[] = [];
    const telemetry = new BadgeTelemetry(realTimeLink(sent));
    const other = new BadgeTelemetry(realTimeLink([]));
    telemetry.report(playing);
    for (let t = 0; t < TELEMETRY_MAX_WAIT_MS - 50; t += 50) {
      vi.advanceTimersByTime(50);
      other.report(playing);
    }
    expect(sent).toEqual([]);
    vi.advanceTimersByTime(50);
    expect(sent).toEqual([playing]);
  });

  it('on a virtual clock (answered frames) a report goes at once', () => {
    const sent: StateReport[] = [];
    new BadgeTelemetry({ ...realTimeLink(sent), answerFrames: true } as BadgeLink).report(playing);
    expect(sent).toEqual([playing]);
  });
});
