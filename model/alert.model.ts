/**
 * The alert lifecycle as an xstate statechart: `quiet` (no alert on) and `alerting` (at least
 * one task alerting), with one transition per input of a schedule. Each transition's effect,
 * the analytic events and device commands it emits, is `step` of `lifecycle.ts`: pure, so
 * `@xstate/graph` can walk the chart (`paths.ts`) and `predict` can run a schedule through it.
 * Timers are inputs too: ADVANCE moves the clock, and the repeats and timeouts due on the way
 * fire in order (xstate's delays know nothing of the virtual clock).
 */
import { assign, not, setup, transition } from 'xstate';
import { step } from './lifecycle.ts';
import {
  type Heard,
  initialState,
  type ModelConfig,
  type ModelInput,
  type ModelState,
  type PredictedEvent,
  type Sent,
} from './lifecycle-state.ts';
import type { LifecycleTransition } from './transitions.ts';

export interface AlertModelInput {
  config: ModelConfig;
}

export interface AlertModelContext {
  config: ModelConfig;
  state: ModelState;
}

const anyAlerting = ({ context }: { context: AlertModelContext }) =>
  context.state.tasks.some((t) => t.endedAt === null);

export const alertModel = setup({
  types: {
    context: {} as AlertModelContext,
    events: {} as ModelInput,
    input: {} as AlertModelInput,
  },
  guards: { anyAlerting },
  actions: {
    /** The one effect of every input: the lifecycle's step (events, commands, clock). */
    apply: assign(({ context, event }) => ({ state: step(context.state, event, context.config) })),
  },
}).createMachine({
  id: 'alert-model',
  context: ({ input }) => ({
    config: input.config,
    state: initialState(input.config.users.length),
  }),
  initial: 'quiet',
  states: {
    quiet: {
      on: {
        POST: { target: 'alerting', actions: 'apply' },
        // Nothing alerting: a tap, a DELETE of an ended task, a drop or a return changes no task.
        TAP: { actions: 'apply' },
        DELETE: { actions: 'apply' },
        DROP: { actions: 'apply' },
        RETURN: { actions: 'apply' },
        ADVANCE: { actions: 'apply' },
      },
    },
    alerting: {
      // Back to quiet once the last task has ended (quorum, timeout or cancel).
      always: { guard: not('anyAlerting'), target: 'quiet' },
      on: {
        POST: { actions: 'apply' },
        TAP: { actions: 'apply' },
        DELETE: { actions: 'apply' },
        DROP: { actions: 'apply' },
        RETURN: { actions: 'apply' },
        ADVANCE: { actions: 'apply' },
      },
    },
  },
});

/** What the model predicts for a schedule. */
export interface Prediction {
  events: PredictedEvent[];
  /** By device index: what the service sent it, and what its wearer heard. */
  sent: Sent[][];
  heard: Heard[][];
  tasks: { key: string; outcome: string | null; acks: number; endedAt: number | null }[];
  deletes: ModelState['deletes'];
  /** By device index: offline, or online with alerts open (`awaiting-ack`) or not (`idle`). */
  states: ('offline' | 'idle' | 'awaiting-ack')[];
  final: ModelState;
}

/** Runs a schedule (inputs in time order) through the statechart, to `until` ms if given. */
export function predict(
  config: ModelConfig,
  inputs: readonly ModelInput[],
  until?: number,
): Prediction {
  let snapshot = alertModel.resolveState({
    value: 'quiet',
    context: { config, state: initialState(config.users.length) },
  });
  const all = until === undefined ? inputs : [...inputs, { type: 'ADVANCE', to: until } as const];
  for (const input of all) [snapshot] = transition(alertModel, snapshot, input);
  return predictionOf(snapshot.context.state);
}

/** The named transitions (transitions.ts) a schedule takes, each once, and the state it ends in. */
export function transitionsTaken(
  config: ModelConfig,
  inputs: readonly ModelInput[],
): { taken: Set<LifecycleTransition>; final: ModelState } {
  let snapshot = alertModel.resolveState({
    value: 'quiet',
    context: { config, state: initialState(config.users.length) },
  });
  const taken = new Set<LifecycleTransition>();
  for (const input of inputs) {
    [snapshot] = transition(alertModel, snapshot, input);
    for (const id of snapshot.context.state.taken) taken.add(id);
  }
  return { taken, final: snapshot.context.state };
}

export function predictionOf(state: ModelState): Prediction {
  return {
    events: state.events,
    sent: state.devices.map((d) => d.sent),
    heard: state.devices.map((d) => d.heard),
    tasks: state.tasks.map((t) => ({
      key: t.key,
      outcome: t.outcome,
      acks: t.acks,
      endedAt: t.endedAt,
    })),
    deletes: state.deletes,
    states: state.devices.map((d) =>
      !d.online ? 'offline' : d.open.length > 0 ? 'awaiting-ack' : 'idle',
    ),
    final: state,
  };
}
