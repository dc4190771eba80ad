/**
 * The fault table: faults a test added (`/_stub/faults`, scenario `fault:` steps) and which one
 * applies to a request now. Pure logic over the stub's clock, without HTTP: the hook in
 * `fault-hook.ts` asks `decide` and carries the answer out. Owned by `StubCore`, emptied by
 * its reset (docs/decisions.md, HF1–HF12).
 */
import { randomBytes } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import { formatDuration, parseDuration, parseDurationRange } from '../protocol/duration.ts';
import {
  FAULT_BODY_MAX_BYTES,
  FAULT_DELAY_MAX_MS,
  FAULTS_CAP,
  type FaultAction,
  type FaultRequest,
  type FaultView,
  type FaultWhen,
} from '../protocol/faults.schema.ts';
import {
  compilePathPattern,
  type PathMatcher,
  pathPatternProblem,
} from '../protocol/path-pattern.ts';
import { draw, Sfc32, seedBytes } from '../protocol/seeded-random.ts';
import type { SnapshotFaults } from '../protocol/snapshot.schema.ts';
import { formatTimestamp } from '../protocol/timestamp.ts';
import { EngineError } from './engine/engine-error.ts';

/** What the table needs to know of a request: all of it as the client sent it. */
export interface FaultedRequest {
  method: string;
  /** The raw path, without the query string. */
  path: string;
  /** The accounts the request names or carries credentials of (HF8); asked only if a fault has one. */
  accounts: () => readonly string[];
}

/** What to do to a request: the hook carries it out. */
export type FaultDecision =
  | { id: string; kind: 'status'; status: number; headers: Record<string, string>; body: unknown }
  | { id: string; kind: 'latency'; ms: number }
  | { id: string; kind: 'reset' }
  | { id: string; kind: 'stall'; ms: number };

type Kind = FaultDecision['kind'];
const KINDS: readonly Kind[] = ['status', 'latency', 'reset', 'stall'];

interface Fault {
  readonly id: string;
  readonly request: Required<FaultRequest>;
  readonly kind: Kind;
  readonly method: string | undefined;
  readonly matchesPath: PathMatcher;
  readonly latency: { min: number; max: number } | undefined;
  readonly stallMs: number;
  readonly addedAt: number;
  readonly from: number;
  readonly until: number | undefined;
  readonly random: () => number;
  /** The generator behind `random`: a world snapshot keeps where it stands (WS4). */
  readonly stream: Sfc32;
  remaining: number | undefined;
  applied: number;
}

export class FaultTable {
  readonly #now: () => number;
  #seed: string | undefined;
  /** Oldest first; `decide` walks it newest first (HF2). */
  #faults: Fault[] = [];
  #counter = 0;

  /**
   * @param now the stub's clock.
   * @param seed the stub's seed: probability and latency draws repeat with it (HF6).
   */
  constructor(now: () => number, seed: number | string | undefined) {
    this.#now = now;
    this.#seed = seed === undefined ? undefined : String(seed);
  }

  /** Adds a fault, checked first (a refusal names the field and adds nothing). */
  add(request: FaultRequest): FaultView {
    const fault = this.#build(request);
    if (this.#faults.length >= FAULTS_CAP) {
      throw new EngineError(
        'too_many_faults',
        `this stub holds ${FAULTS_CAP} faults, the most it keeps: remove one (DELETE /_stub/faults/{id}) or all of them first`,
        'match',
      );
    }
    this.#faults.push(fault);
    this.#counter++;
    return view(fault);
  }

  /** How many faults are kept (a request is not looked at when there are none). */
  get size(): number {
    return this.#faults.length;
  }

  list(): FaultView[] {
    return this.#faults.map(view);
  }

  get(id: string): FaultView | undefined {
    const fault = this.#faults.find((f) => f.id === id);
    return fault && view(fault);
  }

  /** Removes a fault; false when there is none with that id. */
  remove(id: string): boolean {
    const index = this.#faults.findIndex((f) => f.id === id);
    if (index < 0) return false;
    this.#faults.splice(index, 1);
    return true;
  }

  /** Removes every fault; returns how many there were. */
  clear(): number {
    const removed = this.#faults.length;
    this.#faults = [];
    return removed;
  }

  /** The stub's reset: no faults, and a seeded stub's ids start again from `flt_1` (HF4). */
  reset(): void {
    this.clear();
    if (this.#seed !== undefined) this.#counter = 0;
  }

  /**
   * The fault that applies to a request now, if any, counted as applied: the newest matching
   * fault whose window holds now, that has requests left, and whose draw (if it has a
   * probability) says yes; a fault whose draw says no lets the next one be asked (HF2, HF6).
   */
  decide(request: FaultedRequest): FaultDecision | undefined {
    const now = this.#now();
    const method = request.method.toUpperCase();
    let accounts: readonly string[] | undefined;
    for (let i = this.#faults.length - 1; i >= 0; i--) {
      const fault = this.#faults[i]!;
      if (fault.remaining === 0) continue;
      if (now < fault.from || (fault.until !== undefined && now >= fault.until)) continue;
      if (fault.method !== undefined && fault.method !== method) continue;
      const account = fault.request.match.account;
      if (account !== undefined) {
        accounts ??= request.accounts();
        if (!accounts.includes(account)) continue;
      }
      if (!fault.matchesPath(request.path)) continue;
      const probability = fault.request.when?.probability;
      if (probability !== undefined && !(fault.random() < probability)) continue;
      if (fault.remaining !== undefined) fault.remaining--;
      fault.applied++;
      return decision(fault);
    }
    return undefined;
  }

  /** The faults as a world snapshot keeps them: each with where its draws stand (WS4). */
  toSnapshot(): SnapshotFaults {
    return {
      counter: this.#counter,
      list: this.#faults.map((f) => ({
        id: f.id,
        request: structuredClone(f.request),
        added_at: f.addedAt,
        remaining: f.remaining ?? null,
        applied: f.applied,
        random: f.stream.state,
      })),
    };
  }

  /**
   * The faults of a snapshot, each checked as `add` checks it (a refusal names
   * `faults.list[i]…` and changes nothing); the returned function puts them in place.
   */
  prepareRestore(snapshot: SnapshotFaults, seed: string | undefined): () => void {
    const faults = snapshot.list.map((saved, i) => {
      try {
        const fault = this.#build(saved.request as FaultRequest, saved.id, saved.added_at);
        fault.stream.resume(saved.random);
        fault.remaining = saved.remaining ?? undefined;
        fault.applied = saved.applied;
        return fault;
      } catch (error) {
        if (!(error instanceof EngineError)) throw error;
        const field = `faults.list[${i}].request${error.field ? `.${error.field}` : ''}`;
        throw new EngineError('invalid_field', error.message, field);
      }
    });
    return () => {
      // Faults added later draw as they would have in the world the snapshot was taken of.
      this.#seed = seed;
      this.#faults = faults;
      this.#counter = snapshot.counter;
    };
  }

  #build(request: FaultRequest, givenId?: string, givenAddedAt?: number): Fault {
    const { match, action } = request;
    const when = request.when ?? {};
    const problem = pathPatternProblem(match.path);
    if (problem) throw invalid('match.path', `match.path ${problem}`);
    const kind = actionKind(action);
    checkStatusFields(action, kind);
    const latency = kind === 'latency' ? latencyOf(action.latency!) : undefined;
    const stallMs = kind === 'stall' ? delayOf(action.stall!, 'action.stall') : 0;
    const after = durationOf(when.after, 'when.after') ?? 0;
    const lasting = durationOf(when.for, 'when.for');
    const addedAt = givenAddedAt ?? this.#now();
    const id = givenId ?? `flt_${this.#counter + 1}`;
    return {
      id,
      request: structuredClone({ match, action, when }),
      kind,
      method: match.method?.toUpperCase(),
      matchesPath: compilePathPattern(match.path),
      latency,
      stallMs,
      addedAt,
      from: addedAt + after,
      until: lasting === undefined ? undefined : addedAt + after + lasting,
      ...faultRandom(
        this.#seed === undefined
          ? seedBytes(randomBytes(16).toString('hex'))
          : seedBytes('badge-sim faults', this.#seed, id),
      ),
      remaining: when.times,
      applied: 0,
    };
  }
}

/** A fault's draws: the stream and what reads it, as `seededRandom` would make them. */
function faultRandom(start: Uint8Array): { stream: Sfc32; random: () => number } {
  const stream = new Sfc32(start);
  return { stream, random: () => stream.nextUint32() / 4_294_967_296 };
}

function invalid(field: string, message: string): EngineError {
  return new EngineError('invalid_field', message, field);
}

/** Exactly one of the four actions (HF1). */
function actionKind(action: FaultAction): Kind {
  const given = KINDS.filter((kind) => Object.hasOwn(action, kind));
  if (given.length !== 1) {
    throw invalid(
      'action',
      given.length === 0
        ? 'action needs one of status, latency, reset or stall'
        : `action has ${given.join(' and ')}: give only one of them`,
    );
  }
  return given[0]!;
}

function checkStatusFields(action: FaultAction, kind: Kind): void {
  for (const field of ['retry_after', 'body'] as const) {
    if (kind !== 'status' && Object.hasOwn(action, field))
      throw invalid(`action.${field}`, `action.${field} goes with action.status only`);
  }
  if (kind === 'status' && Object.hasOwn(action, 'body')) {
    const text = JSON.stringify(action.body);
    if (text !== undefined && Buffer.byteLength(text) > FAULT_BODY_MAX_BYTES)
      throw invalid('action.body', `action.body is over ${FAULT_BODY_MAX_BYTES} bytes of JSON`);
  }
}

/** A latency: fixed ms, or a text duration or range, at most the bound (HF5). */
function latencyOf(latency: string | number): { min: number; max: number } {
  const range =
    typeof latency === 'number'
      ? { min: latency, max: latency }
      : parseDurationRange(latency.replace(/\s+/g, ''));
  if (range === undefined) {
    throw invalid(
      'action.latency',
      `action.latency '${latency}' is not a duration or a range: try '800ms', '2s' or '100ms..900ms' (whole ms, the low end first)`,
    );
  }
  if (range.max > FAULT_DELAY_MAX_MS) {
    throw invalid(
      'action.latency',
      `action.latency '${latency}' is longer than ${formatDuration(FAULT_DELAY_MAX_MS)}, the longest delay`,
    );
  }
  return range;
}

function delayOf(text: string | number, field: string): number {
  const ms = parseDuration(text);
  if (ms === undefined) throw invalid(field, `${field} '${text}' is not a duration (try '30s')`);
  if (ms > FAULT_DELAY_MAX_MS) {
    throw invalid(
      field,
      `${field} '${text}' is longer than ${formatDuration(FAULT_DELAY_MAX_MS)}, the longest delay`,
    );
  }
  return ms;
}

function durationOf(text: FaultWhen['after'], field: string): number | undefined {
  if (text === undefined) return undefined;
  const ms = parseDuration(text);
  if (ms === undefined) {
    throw invalid(field, `${field} '${text}' is not a duration: whole ms (try '10s', '5m')`);
  }
  return ms;
}

/** What a fault does to the request it applies to. */
function decision(fault: Fault): FaultDecision {
  const { id } = fault;
  const action = fault.request.action;
  switch (fault.kind) {
    case 'status': {
      const status = action.status!;
      const retryAfter = action.retry_after ?? (status === 429 || status === 503 ? 1 : undefined);
      return {
        id,
        kind: 'status',
        status,
        headers: retryAfter === undefined ? {} : { 'retry-after': String(retryAfter) },
        body: Object.hasOwn(action, 'body') ? action.body : defaultBody(status, id),
      };
    }
    case 'latency':
      return { id, kind: 'latency', ms: draw(fault.random, fault.latency!) };
    case 'reset':
      return { id, kind: 'reset' };
    case 'stall':
      return { id, kind: 'stall', ms: fault.stallMs };
  }
}

/** The service's error shape, saying which fault answered (HF9). */
function defaultBody(status: number, id: string) {
  const error = STATUS_CODES[status] ?? 'Error';
  return {
    statusCode: status,
    error,
    code: 'fault_injected',
    message: `badge-sim fault ${id} answered ${status} ${error}`,
  };
}

function view(fault: Fault): FaultView {
  const { match, action, when } = fault.request;
  return {
    id: fault.id,
    match,
    action: { kind: fault.kind, ...action },
    when,
    added_at: formatTimestamp(fault.addedAt),
    active_from: formatTimestamp(fault.from),
    active_until: fault.until === undefined ? null : formatTimestamp(fault.until),
    remaining: fault.remaining ?? null,
    applied: fault.applied,
  };
}
