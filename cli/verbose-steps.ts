/**
 * `run --verbose`: each step on stderr as it runs (decision Y10), a line a step under its
 * scenario's name: its index in the timeline, its time on the scenario's clock, what it does
 * and how it came out. Loaded only when --verbose is given.
 */
import type { StepObserver } from '../scenarios/runner/step-progress.ts';

/** How long a step's value may print before it is cut (with …). */
const VALUE_WIDTH = 100;

export function stepPrinter(stream: NodeJS.WritableStream = process.stderr): StepObserver {
  let current: string | undefined;
  return ({ scenario, index, at, action, step, status, mismatch }) => {
    if (scenario !== current) {
      current = scenario;
      stream.write(`▸ ${scenario}\n`);
    }
    const value = (step as Record<string, unknown>)[action];
    const outcome =
      status === undefined
        ? 'done'
        : mismatch
          ? `${status}, not as expected: ${mismatch}`
          : `${status}`;
    stream.write(`  step ${index} at ${onClock(at)}: ${action}${describe(value)} → ${outcome}\n`);
  };
}

/** A time on the scenario's clock: `0s`, `12s`, `12.5s`, `300s`. */
function onClock(ms: number): string {
  return `${(ms / 1_000).toFixed(3).replace(/\.?0+$/, '')}s`;
}

/** A step's value in one short line: a word as it is, anything else as compact JSON. */
function describe(value: unknown): string {
  if (value === undefined || value === null || value === true) return '';
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return ` ${text.length > VALUE_WIDTH ? `${text.slice(0, VALUE_WIDTH - 1)}…` : text}`;
}
