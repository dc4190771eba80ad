/**
 * `repro --search`: when the inferred scenario does not give the field's history, try the
 * alternatives the spec leaves open, each a badge behaviour or a stub setting a scenario can
 * carry, and report which explain the log (decision FB11). Every variant is an ordinary
 * scenario, run on the virtual clock like the inferred one; one that matches can be saved as
 * a regression test.
 *
 * Global alternatives make the bases: the tap rule of every badge (D11) and, when the export
 * has an alert that ended `normal` with no acknowledgement then, cancels read as
 * `cancel_events: end-normal`. From each base, taps are mended one at a time where the
 * histories part: the tap pressed earlier, while its wearer heard the alert it acknowledged,
 * and late on the way; or its wearer off the network before it, so that what they hear on
 * return is what they tap. A mend is kept only when the histories then part later.
 */
import { TAP_RULES, type TapRule } from '../../../fixtures/fixtures.schema.ts';
import type { Step } from '../../format/step.schema.ts';
import { type Comparison, clock } from './compare-histories.ts';
import { at, type Inferred, scenarioYaml, sortSteps } from './infer-scenario.ts';
import type { FieldEvent } from './read-export.ts';
import {
  type InferredRun,
  inferFrom,
  type ReproInput,
  readEvents,
  runInferred,
} from './reproduce.ts';
import { SEARCH_MAX_MS, SEARCH_MAX_RUNS } from './search-bounds.ts';

/** One alternative to what the defaults say; each maps onto a behaviour, a setting or steps. */
export type Alternative =
  | { kind: 'tap-rule'; rule: Exclude<TapRule, 'sounding'> }
  | { kind: 'cancel-events' }
  | {
      kind: 'offline-before-tap';
      user: string;
      alert: string;
      tapMs: number;
      fromMs: number;
      toMs: number;
    }
  | { kind: 'tap-pressed-earlier'; user: string; alert: string; tapMs: number; pressedMs: number };

/** One variant run: the alternatives it applies and how its history compared. */
interface Trial {
  alternatives: Alternative[];
  /** How it compared: the histories themselves are not kept (a search runs many). */
  comparison: Pick<Comparison, 'match' | 'difference'>;
}

/** A variant whose history matches the field's, as a scenario ready to save. */
interface Explanation {
  alternatives: Alternative[];
  inferred: Inferred;
  yaml: string;
}

export interface SearchResult {
  /** Every variant run, in the order tried; the first is the inferred scenario as is. */
  trials: Trial[];
  /** The variants that match, fewest alternatives first. */
  explanations: Explanation[];
  /** The search stopped at `maxRuns` before it had tried every base. */
  stopped: boolean;
  eventCount: number;
}

/** Explanations kept, each with its scenario; past it, the search still counts its trials. */
const MAX_EXPLANATIONS = 20;
/** Taps mended one after another from one base, at most. */
const MAX_MENDS = 20;
/** How long before its logged instant a late tap may have been pressed. */
const LATE_TAP_WINDOW_MS = 30_000;
/** A tap pressed this far into a clip of the alert it acknowledged (every clip is longer). */
const PRESS_INTO_CLIP_MS = 100;
/** The earlier presses tried, at most: the latest clips of the alert before the tap. */
const PRESSES_TRIED = 3;
/** Offline windows tried before a tap: back this long before it, off for at most 30 s. */
const RETURN_BEFORE_TAP_MS = [500, 2_000, 5_000];
const OFFLINE_AT_MOST_MS = 30_000;

export async function searchAlternatives(
  input: ReproInput & { maxRuns?: number; maxMs?: number },
): Promise<SearchResult> {
  const say = input.progress ?? (() => {});
  const maxRuns = input.maxRuns ?? SEARCH_MAX_RUNS;
  const maxMs = input.maxMs ?? SEARCH_MAX_MS;
  const toleranceMs = input.toleranceMs ?? 0;
  const events = readEvents(input);
  const trials: Trial[] = [];
  const explanations: Explanation[] = [];
  let stopped = false;

  const started = performance.now();
  const run = async (variant: Variant): Promise<InferredRun | undefined> => {
    if (trials.length >= maxRuns || performance.now() - started > maxMs) {
      stopped = true;
      return undefined;
    }
    const result = await runInferred(variant.inferred, toleranceMs, variant.yaml);
    const { match, difference } = result.comparison;
    trials.push({ alternatives: variant.alternatives, comparison: { match, difference } });
    if (match && explanations.length < MAX_EXPLANATIONS) explanations.push(variant);
    return result;
  };

  const bases = basesOf(events, input);
  say(
    `searching ${bases.length} base(s) (tap rules${bases.some((b) => b.alternatives.some((a) => a.kind === 'cancel-events')) ? ', cancel events' : ''}), mending taps where the histories part; at most ${maxRuns} runs`,
  );
  for (const base of bases) {
    await mendFrom(base, run);
    say(
      `tried ${label(base.alternatives)}: ${trials.length} run(s) so far, ${explanations.length} explanation(s)`,
    );
    if (stopped) break;
  }
  // Fewest alternatives first; of as many, those of a behaviour or setting before mended taps.
  const mends = (e: Explanation) =>
    e.alternatives.filter(
      (a) => a.kind === 'tap-pressed-earlier' || a.kind === 'offline-before-tap',
    ).length;
  explanations.sort((a, b) => a.alternatives.length - b.alternatives.length || mends(a) - mends(b));
  return { trials, explanations, stopped, eventCount: events.length };
}

/** A scenario to run: the inferred one with alternatives applied, and its YAML. */
interface Variant extends Explanation {}

/**
 * The bases: every tap rule, under the default reading of cancels and, when an alert ended
 * `normal` with no acknowledgement then, under `cancel_events: end-normal`.
 */
function basesOf(events: FieldEvent[], input: ReproInput): Variant[] {
  const inferred = inferFrom(events, input);
  const endedNormalByCancel = inferred.alerts.some(
    (a) => a.outcome === 'cancelled' && a.endStatus === 'normal',
  );
  const readings = endedNormalByCancel
    ? [inferred, inferFrom(events, input, 'end-normal')]
    : [inferred];
  const bases: Variant[] = [];
  for (const reading of readings) {
    const cancel: Alternative[] = reading === inferred ? [] : [{ kind: 'cancel-events' }];
    for (const rule of TAP_RULES) {
      const alternatives: Alternative[] =
        rule === 'sounding' ? cancel : [...cancel, { kind: 'tap-rule', rule }];
      bases.push(
        variantOf(rule === 'sounding' ? reading : withTapRule(reading, rule), alternatives),
      );
    }
  }
  return bases;
}

/**
 * From a base, mend the tap where the histories part, keeping the mend that gets furthest,
 * until they match, no mend helps, or the runs run out. Every mend of a round is tried, so
 * each one that explains the log is found, not only the first.
 */
async function mendFrom(
  base: Variant,
  run: (variant: Variant) => Promise<InferredRun | undefined>,
): Promise<void> {
  let current = base;
  let result = await run(current);
  for (let mends = 0; result && !result.comparison.match && mends < MAX_MENDS; mends++) {
    const reached = result.comparison.difference!.index;
    let best: { variant: Variant; result: InferredRun } | undefined;
    let matched = false;
    for (const mend of mendsFor(current.inferred, result)) {
      const variant = variantOf(applyMend(current.inferred, mend), [...current.alternatives, mend]);
      const tried = await run(variant);
      if (!tried) return;
      if (tried.comparison.match) matched = true;
      const index = tried.comparison.difference?.index ?? Number.POSITIVE_INFINITY;
      if (index > reached && (!best || index > (best.result.comparison.difference?.index ?? 0)))
        best = { variant, result: tried };
    }
    if (matched || !best) return;
    current = best.variant;
    result = best.result;
  }
}

/** The mends of the tap where the histories part, when they part at an acknowledgement. */
function mendsFor(inferred: Inferred, result: InferredRun): Alternative[] {
  const field = result.comparison.difference?.field;
  if (field?.type !== 'acknowledged' || !field.device) return [];
  const user = field.device;
  const alert = field.task;
  const tapMs = field.at;
  if (tapStepAt(inferred.scenario.timeline, user, tapMs) < 0) return [];
  const mends: Alternative[] = [];
  const clips = (result.heard.get(user) ?? []).filter(
    (c) =>
      c.kind === 'alert' &&
      c.task === alert &&
      c.at + PRESS_INTO_CLIP_MS < tapMs &&
      c.at >= tapMs - LATE_TAP_WINDOW_MS,
  );
  for (const clip of clips.slice(-PRESSES_TRIED).reverse())
    mends.push({
      kind: 'tap-pressed-earlier',
      user,
      alert,
      tapMs,
      pressedMs: clip.at + PRESS_INTO_CLIP_MS,
    });
  // Off the network no earlier than the wearer's previous step: an offline badge cannot tap.
  const previous = Math.max(
    0,
    ...inferred.scenario.timeline
      .filter((s) => stepUser(s) === user && msOf(s.at) < tapMs)
      .map((s) => msOf(s.at) + 1),
  );
  for (const before of RETURN_BEFORE_TAP_MS) {
    const toMs = tapMs - before;
    const fromMs = Math.max(previous, toMs - OFFLINE_AT_MOST_MS);
    if (toMs > fromMs) mends.push({ kind: 'offline-before-tap', user, alert, tapMs, fromMs, toMs });
  }
  return mends;
}

function variantOf(inferred: Inferred, alternatives: Alternative[]): Variant {
  const proved = alternatives.length === 0 ? inferred : withProves(inferred, alternatives);
  return { inferred: proved, alternatives, yaml: scenarioYaml(proved) };
}

/** `proves:` says which alternatives the scenario takes. */
function withProves(inferred: Inferred, alternatives: Alternative[]): Inferred {
  const copy = structuredClone(inferred);
  copy.scenario.proves = `${copy.scenario.proves.replace(/ happens again on the stub.*$/s, '')} happens again on the stub when ${label(alternatives)}.`;
  return copy;
}

/** Every badge acknowledges by `rule` (behaviour `acknowledges`, D11). */
function withTapRule(inferred: Inferred, rule: TapRule): Inferred {
  const copy = structuredClone(inferred);
  const behaviours = copy.scenario.behaviours ?? {};
  behaviours['*'] = { ...(behaviours['*'] ?? {}), acknowledges: rule };
  copy.scenario.behaviours = behaviours;
  copy.guesses.push({
    path: ['behaviours'],
    comment: `found by repro --search: ${describeAlternative({ kind: 'tap-rule', rule: rule as 'oldest' })}`,
  });
  return copy;
}

/** A tap moved or an offline window added, the steps kept in time order. */
function applyMend(inferred: Inferred, mend: Alternative): Inferred {
  const copy = structuredClone(inferred);
  const { timeline } = copy.scenario;
  const comment = `found by repro --search: ${describeAlternative(mend)}`;
  if (mend.kind === 'tap-pressed-earlier') {
    const index = tapStepAt(timeline, mend.user, mend.tapMs);
    const step = timeline[index] as Extract<Step, { tap: string }>;
    timeline[index] = {
      ...step,
      at: at(mend.pressedMs),
      delay: at(mend.tapMs - mend.pressedMs),
    } as Step;
    copy.guesses.push({ path: ['timeline', index], comment });
  }
  if (mend.kind === 'offline-before-tap') {
    copy.guesses.push({ path: ['timeline', timeline.length], comment });
    timeline.push({ at: at(mend.fromMs), offline: mend.user } as Step);
    timeline.push({ at: at(mend.toMs), online: mend.user } as Step);
  }
  sortSteps(timeline, copy.guesses);
  return copy;
}

/** The index of the tap step by `user` that the field logged at `tapMs`; -1 when none. */
function tapStepAt(timeline: Step[], user: string, tapMs: number): number {
  return timeline.findIndex(
    (s) => 'tap' in s && s.tap === user && msOf(s.at) === tapMs && !('delay' in s),
  );
}

function stepUser(step: Step): string | undefined {
  for (const key of ['tap', 'offline', 'online'] as const)
    if (key in step) return (step as Record<string, unknown>)[key] as string;
  return undefined;
}

function msOf(text: string): number {
  return text.endsWith('ms') ? Number(text.slice(0, -2)) : Number(text.slice(0, -1)) * 1000;
}

/** An alternative in words, for the report and the scenario's comments. */
function describeAlternative(alternative: Alternative): string {
  switch (alternative.kind) {
    case 'tap-rule':
      return `every badge acknowledges the ${alternative.rule} alert it has heard (behaviour acknowledges: ${alternative.rule}; decision D11)`;
    case 'cancel-events':
      return 'a cancel ends normal, not cancelled (settings: cancel_events: end-normal)';
    case 'tap-pressed-earlier':
      return `${alternative.user} pressed at ${clock(alternative.pressedMs)}, while hearing \`${alternative.alert}\`, and the tap reached the service ${seconds(alternative.tapMs - alternative.pressedMs)} later, at ${clock(alternative.tapMs)} (tap delay)`;
    case 'offline-before-tap':
      return `${alternative.user} was off the network from ${clock(alternative.fromMs)} to ${clock(alternative.toMs)}, before the tap at ${clock(alternative.tapMs)} (offline, online)`;
  }
}

/** Alternatives joined in words; none is the defaults. */
export function label(alternatives: Alternative[]): string {
  return alternatives.length === 0
    ? 'the defaults'
    : alternatives.map(describeAlternative).join('; and ');
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(ms % 1000 === 0 ? 0 : 1)} s`;
}
