/**
 * What a runner tells of each step as it runs, for `run --verbose` (decision Y10): which step,
 * when on the scenario's clock, what it did and how it came out. Only a run that asks for it
 * is told (`RunOptions.onStep`); the others pay one absent-callback check a step.
 */
import type { Step } from '../format/step.schema.ts';

export interface StepProgress {
  /** The scenario's name. */
  readonly scenario: string;
  /** Its index in the timeline (a repeated step: the same index each time). */
  readonly index: number;
  /** Its time on the scenario's clock, in ms from the scenario's start. */
  readonly at: number;
  /** Its action: `alert`, `tap`, `jump`, … */
  readonly action: string;
  readonly step: Step;
  /** The answer's status, for a step that sends a request. */
  readonly status?: number;
  /** Why the answer is not the one the step expects, when it is not. */
  readonly mismatch?: string;
}

export type StepObserver = (progress: StepProgress) => void;
