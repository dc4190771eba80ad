/**
 * Which transitions of the badge machine a run exercised (`badge-sim run --coverage`, decision
 * CV1). Every transition of the machine's definition is listed once, by its source state, its
 * event (`always` for an eventless one), its guard and its targets; a run's badges report each
 * transition they take through xstate's inspection, and what was never taken is the gap.
 */
import type { InspectionEvent } from 'xstate';
import { badgeMachine } from './badge.machine.ts';

/** The parts of an xstate transition definition a key is made of. */
interface TransitionLike {
  source: { id: string };
  eventType: string;
  guard?: unknown;
  target?: readonly { id: string }[] | undefined;
}

interface StateNodeLike {
  transitions: Map<string, TransitionLike[]>;
  always?: TransitionLike[];
  states: Record<string, StateNodeLike>;
}

/** `badge.online.idle --PLAY--> badge.online.playing`, guards in brackets. */
export function transitionKey(t: TransitionLike): string {
  const guard =
    t.guard === undefined
      ? ''
      : `[${typeof t.guard === 'object' && t.guard !== null && 'type' in t.guard ? String(t.guard.type) : typeof t.guard === 'string' ? t.guard : 'guard'}]`;
  const event = t.eventType === '' ? 'always' : t.eventType;
  const targets = t.target?.map((n) => n.id).join(',') ?? '(stays)';
  return `${t.source.id} --${event}${guard}--> ${targets}`;
}

/** Every transition of the badge machine, in the order of its definition. */
export function badgeTransitions(): string[] {
  const keys: string[] = [];
  const walk = (node: StateNodeLike) => {
    for (const definitions of node.transitions.values())
      for (const t of definitions) keys.push(transitionKey(t));
    for (const t of node.always ?? []) keys.push(transitionKey(t));
    for (const child of Object.values(node.states)) walk(child);
  };
  walk(badgeMachine.root as unknown as StateNodeLike);
  return keys;
}

/** What one kind of machine's transitions a run exercised. */
export interface TransitionCoverageReport {
  transitions: number;
  exercised: number;
  /** Whole per cent, rounded down: 100 only when nothing is missing. */
  percent: number;
  missing: string[];
}

/** Collects the transitions badges take; give `inspect` to every badge of the run. */
export class BadgeCoverage {
  readonly #seen = new Set<string>();

  readonly inspect = (event: InspectionEvent): void => {
    if (event.type !== '@xstate.microstep') return;
    for (const t of (event as unknown as { _transitions?: TransitionLike[] })._transitions ?? [])
      this.#seen.add(transitionKey(t));
  };

  report(): TransitionCoverageReport {
    const all = badgeTransitions();
    const missing = all.filter((key) => !this.#seen.has(key));
    const exercised = all.length - missing.length;
    return {
      transitions: all.length,
      exercised,
      percent: Math.floor((100 * exercised) / all.length),
      missing,
    };
  }
}
