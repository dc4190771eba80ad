/**
 * The paths through the alert model that a generated suite covers: every order in which the
 * devices acknowledge (up to the quorum), and the timer boundaries that matter (a tap just
 * before, at and after a repeat and the timeout), with cancels, a device dropping and
 * returning, and two alerts of one name, as asked. `@xstate/graph` walks the statechart of
 * `alert.model.ts`: at each state, the inputs a family allows next are its events, and a path
 * ends where the clock is run to the end. Devices are interchangeable, so the boundary,
 * cancel, offline and same-name families take the devices in index order (the order family
 * alone tries every order).
 */
import { getShortestPaths } from '@xstate/graph';
import type { SnapshotFrom } from 'xstate';
import { alertModel } from './alert.model.ts';
import {
  DEFAULT_TIMEOUT_S,
  type ModelConfig,
  type ModelInput,
  type ModelState,
} from './lifecycle-state.ts';

/** What `--with` can add to the paths. */
export const FEATURES = ['cancel', 'timeout', 'offline', 'same-name'] as const;
export type Feature = (typeof FEATURES)[number];
/** A quorum to try: the default (every device of the group) or a number. */
export type QuorumChoice = 'default' | number;

/** At most this many devices: the orders of acknowledgement grow as their factorial. */
export const MAX_DEVICES = 6;
/** At most this many paths in one enumeration (decision MB3); more is an error, not a cut. */
export const MAX_PATHS = 5_000;

export interface PathSpec {
  devices: number;
  quorums: readonly QuorumChoice[];
  features: readonly Feature[];
  /** Default MAX_PATHS. */
  cap?: number;
}

type Family =
  | 'order'
  | 'repeat'
  | 'timeout'
  | 'default-timeout'
  | 'cancel'
  | 'offline'
  | 'same-name'
  | 'same-instant';

export interface ModelPath {
  family: Family;
  quorum: QuorumChoice;
  inputs: ModelInput[];
  /** When the clock is run to: 30 s past the last timeout. */
  endAt: number;
}

export class PathLimitError extends Error {}

/** The timeout of generated alerts (s): one repeat at 30 s before it, so paths stay short. */
export const GENERATED_TIMEOUT_S = 60;
const s = (seconds: number) => seconds * 1000;
/** Taps of the order family: one every 5 s, well clear of the repeat and the timeout. */
const ORDER_GAP = s(5);
const REPEAT_BOUNDARY = [s(29), s(30), s(31)];
const TIMEOUT_BOUNDARY = [s(59), s(60), s(61)];
const RETURNS = [s(20), s(30), s(45), s(70)];

type Snapshot = SnapshotFrom<typeof alertModel>;
/** The inputs a family allows after `state`; `end` is the input that ends every path. */
type Candidates = (state: ModelState, end: ModelInput) => ModelInput[];

/** Every path of the spec, family by family, quorum by quorum, in a stable order. */
export function enumeratePaths(spec: PathSpec, config: ModelConfig): ModelPath[] {
  const cap = spec.cap ?? MAX_PATHS;
  const families = familiesOf(spec.features);
  const paths: ModelPath[] = [];
  for (const quorum of spec.quorums) {
    const q = quorum === 'default' ? spec.devices : quorum;
    const post = (
      task: string,
      at: number,
      extra: Partial<Extract<ModelInput, { type: 'POST' }>> = {},
    ) =>
      ({
        type: 'POST',
        at,
        task,
        timeout: GENERATED_TIMEOUT_S,
        ...(quorum === 'default' ? {} : { quorum }),
        ...extra,
      }) as const;
    for (const family of families) {
      const plan = PLANS[family]({ devices: spec.devices, q, post });
      const found = walk(config, plan, cap - paths.length, cap);
      for (const inputs of found) paths.push({ family, quorum, inputs, endAt: plan.endAt });
    }
  }
  return paths;
}

function familiesOf(features: readonly Feature[]): Family[] {
  const has = (f: Feature) => features.includes(f);
  return [
    'order',
    'repeat',
    ...(has('timeout') ? (['timeout', 'default-timeout'] as const) : []),
    ...(has('cancel') ? (['cancel'] as const) : []),
    ...(has('offline') ? (['offline'] as const) : []),
    ...(has('same-name') ? (['same-name', 'same-instant'] as const) : []),
  ];
}

interface Plan {
  start: ModelInput[];
  candidates: Candidates;
  endAt: number;
}

type Post = (
  task: string,
  at: number,
  extra?: Partial<Extract<ModelInput, { type: 'POST' }>>,
) => Extract<ModelInput, { type: 'POST' }>;

const alerting = (state: ModelState) => state.tasks.some((t) => t.endedAt === null);
const tapsOf = (state: ModelState) =>
  state.inputs.filter((i): i is Extract<ModelInput, { type: 'TAP' }> => i.type === 'TAP');
const lastInput = (state: ModelState) => state.inputs.at(-1)!;
/** A tap by the next device in index order at `at`. */
const nextTap = (state: ModelState, devices: number, at: number): ModelInput[] => {
  const device = tapsOf(state).length % devices;
  return [{ type: 'TAP', at, device }];
};

/** What a family's plans are made from: the group, the quorum, and how to post an alert. */
interface PlanContext {
  devices: number;
  q: number;
  post: Post;
}

const END_AT = s(GENERATED_TIMEOUT_S + 30);

/** The canonical prefix: devices 0, 1, … tap every 5 s. */
const prefixTap = (state: ModelState, devices: number) =>
  nextTap(state, devices, ORDER_GAP * (tapsOf(state).length + 1));

/** Up to q − 1 prefix taps, then the next device taps at one of `times`, then the end. */
const boundaryPlan =
  (times: number[]) =>
  ({ devices, q, post }: PlanContext): Plan => ({
    start: [post('a', 0)],
    endAt: END_AT,
    candidates: (state, end) => {
      const last = lastInput(state);
      if (last.type === 'TAP' && last.at >= times[0]!) return [end];
      return [
        ...(tapsOf(state).length < q - 1 ? prefixTap(state, devices) : []),
        ...times.flatMap((at) => nextTap(state, devices, at)),
      ];
    },
  });

/** Every order: any device that has not tapped taps next, or the clock runs out. */
function orderPlan({ devices, post }: PlanContext): Plan {
  return {
    start: [post('a', 0)],
    endAt: END_AT,
    candidates: (state, end) => {
      if (!alerting(state)) return [end];
      const tapped = new Set(tapsOf(state).map((t) => t.device));
      const at = ORDER_GAP * (tapped.size + 1);
      const taps: ModelInput[] = [];
      for (let device = 0; device < devices; device++)
        if (!tapped.has(device)) taps.push({ type: 'TAP', at, device });
      return [...taps, end];
    },
  };
}

/** L1: nobody taps a default (300 s) alert: ten plays, the timeout wins at 300 s. */
function defaultTimeoutPlan({ post }: PlanContext): Plan {
  return {
    start: [post('a', 0, { timeout: undefined })],
    endAt: s(DEFAULT_TIMEOUT_S + 30),
    candidates: (_, end) => [end],
  };
}

/** A DELETE after each prefix of taps, at a repeat's instant, and at the timeout's (409). */
function cancelPlan({ devices, q, post }: PlanContext): Plan {
  return {
    start: [post('a', 0)],
    endAt: END_AT,
    candidates: (state, end) => {
      if (lastInput(state).type === 'DELETE') return [end];
      const taps = tapsOf(state).length;
      const cancels: ModelInput[] = [{ type: 'DELETE', at: ORDER_GAP * (taps + 1), task: 'a' }];
      if (taps === 0)
        cancels.push(
          { type: 'DELETE', at: s(30), task: 'a' },
          { type: 'DELETE', at: s(60), task: 'a' },
        );
      return [...(taps < q && alerting(state) ? prefixTap(state, devices) : []), ...cancels];
    },
  };
}

/**
 * Device 0 drops at 10 s and comes back before, at or after the repeat, or after the
 * timeout; then it taps 5 s after its return, or not.
 */
function offlinePlan({ post }: PlanContext): Plan {
  return {
    start: [post('a', 0), { type: 'DROP', at: s(10), device: 0 }],
    endAt: END_AT,
    candidates: (state, end) => {
      const last = lastInput(state);
      if (last.type === 'DROP') return RETURNS.map((at) => ({ type: 'RETURN', at, device: 0 }));
      if (last.type === 'RETURN') return [{ type: 'TAP', at: last.at + ORDER_GAP, device: 0 }, end];
      return [end];
    },
  };
}

/**
 * Two alerts of one name, 10 s apart: each device taps twice in turn, every 5 s from 15 s; a
 * path ends after any number of those taps.
 */
function sameNamePlan({ devices, post }: PlanContext): Plan {
  return {
    start: [post('a', 0, { name: 'shared' }), post('b', s(10), { name: 'shared' })],
    endAt: s(10 + GENERATED_TIMEOUT_S + 30),
    candidates: (state, end) => {
      const taps = tapsOf(state).length;
      const more = taps < 2 * devices && alerting(state);
      return [...(more ? nextTap(state, devices, s(15) + ORDER_GAP * taps) : []), end];
    },
  };
}

/** L1a: two of one name at 0 s with one timeout; the second is released as both end. */
function sameInstantPlan({ post }: PlanContext): Plan {
  return {
    start: [post('a', 0, { name: 'shared' }), post('b', 0, { name: 'shared' })],
    endAt: END_AT,
    candidates: (_, end) => [end],
  };
}

const PLANS: Record<Family, (context: PlanContext) => Plan> = {
  order: orderPlan,
  repeat: boundaryPlan(REPEAT_BOUNDARY),
  timeout: boundaryPlan(TIMEOUT_BOUNDARY),
  'default-timeout': defaultTimeoutPlan,
  cancel: cancelPlan,
  offline: offlinePlan,
  'same-name': sameNamePlan,
  'same-instant': sameInstantPlan,
};

/** The paths from `start` that the candidates allow, each ending with the run to `endAt`. */
function walk(
  config: ModelConfig,
  { start, candidates, endAt }: Plan,
  room: number,
  cap: number,
): ModelInput[][] {
  const end: ModelInput = { type: 'ADVANCE', to: endAt };
  const isEnd = (snapshot: Snapshot) => {
    const last = snapshot.context.state.inputs.at(-1);
    return last?.type === 'ADVANCE' && last.to === endAt;
  };
  const events = (snapshot: Snapshot): ModelInput[] => {
    const state = snapshot.context.state;
    if (state.inputs.length < start.length) return [start[state.inputs.length]!];
    if (isEnd(snapshot)) return [];
    return candidates(state, end).filter((input) => {
      const at = input.type === 'ADVANCE' ? input.to : input.at;
      return at >= state.now;
    });
  };
  let paths: ReturnType<typeof getShortestPaths<typeof alertModel>>;
  try {
    paths = getShortestPaths(alertModel, {
      input: { config },
      events,
      toState: isEnd,
      serializeState: (snapshot) => JSON.stringify(snapshot.context.state.inputs),
      // Each path's states: its inputs and its end; a little over the room left.
      limit: Math.max(1, room) * 20,
    });
  } catch (error) {
    if (error instanceof Error && /limit/i.test(error.message)) throw tooMany(cap);
    throw error;
  }
  const ends = paths.filter((p) => isEnd(p.state));
  if (ends.length > room) throw tooMany(cap);
  return ends.map((p) => p.state.context.state.inputs);
}

function tooMany(cap: number): PathLimitError {
  return new PathLimitError(
    `more than ${cap} paths (the cap): ask for fewer devices, quorum values or --with features`,
  );
}
