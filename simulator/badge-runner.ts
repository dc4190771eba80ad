/**
 * Runs one badge machine without an xstate actor: the badge is its machine snapshot, advanced
 * by the machine's own pure `transition`, and the runner carries out the actions that
 * transition returns, the way an actor would. The machine stays the single source of a
 * badge's behaviour; what goes is the actor's per-badge apparatus (a system, a mailbox,
 * observers, about twenty closures): 4.8 KB of heap a badge against 0.9 KB here, and a third
 * less CPU a play (docs/decisions.md SC4).
 *
 * Faithful to the actor where the badge relies on it (a test runs both on random events and
 * compares): custom actions run in order, then the emitted events reach their listeners once
 * the new snapshot is in place; an event sent while the runner is busy waits its turn; a
 * stopped runner ignores events. What it leaves out, the badge machine does not use: children,
 * delayed events, `raise`, final states.
 */
import type { InspectionEvent } from 'xstate';
import {
  type BadgeContext,
  type BadgeEmitted,
  type BadgeEvent,
  type BadgeInput,
  type BadgeIo,
  badgeMachine,
} from './badge.machine.ts';

type Snapshot = ReturnType<typeof badgeMachine.getInitialSnapshot>;

/** A badge machine's state as a snapshot keeps it: its state value and its context but the io. */
export interface PersistedBadge {
  value: Snapshot['value'];
  context: Omit<BadgeContext, 'io'>;
}

/** What xstate hands the executor: a custom action, or a built-in such as `emit`. */
interface ExecutableAction {
  type: string;
  info: unknown;
  params: unknown;
  exec: ((info: unknown, params: unknown) => void) | undefined;
}

/**
 * The runner whose transition is being computed, and what it produced: xstate reports both
 * through the scope, and a transition is synchronous and runs none of our code but the
 * machine's pure guards and assigns, so one slot for the process is enough.
 */
let collecting: ExecutableAction[] = [];
let inspecting: BadgeRunner | undefined;

/**
 * One scope for every badge of the process: the pure transition reads from it only what an
 * action's arguments name (`self`, set per call) and where to put what it decided.
 */
const scopeFields = {
  self: undefined as unknown,
  id: '',
  sessionId: '',
  logger: () => {},
  defer: () => {},
  emit: () => {},
  stopChild: () => {},
  actionExecutor: (action: ExecutableAction) => {
    collecting.push(action);
  },
  system: {
    _sendInspectionEvent: (event: InspectionEvent) => inspecting?.inspect?.(event),
  },
};
const scope = scopeFields as unknown as Parameters<typeof badgeMachine.transition>[2];

/** A state value resolved once a process (xstate's `resolveState` walks the machine). */
const resolvedStates = new Map<string, Snapshot>();

/**
 * A restored machine snapshot: the state resolved once for each state value, with this
 * badge's context (a snapshot is a plain object; a thousand badges restore in milliseconds).
 */
function resolvedState(resumed: PersistedBadge, io: BadgeIo): Snapshot {
  const key = JSON.stringify(resumed.value);
  let resolved = resolvedStates.get(key);
  if (!resolved) {
    resolved = badgeMachine.resolveState({
      value: resumed.value,
      context: { ...resumed.context, io },
    } as Parameters<typeof badgeMachine.resolveState>[0]);
    resolvedStates.set(key, resolved);
  }
  return { ...resolved, context: { ...resumed.context, io } } as Snapshot;
}

export class BadgeRunner {
  #snapshot!: Snapshot;
  #busy = false;
  #stopped = false;
  /** Events sent while busy (by an action, or a listener), in order; made when first needed. */
  #waiting: BadgeEvent[] | undefined;
  readonly #emitted: (event: BadgeEmitted) => void;
  /** Told of every transition taken (coverage); xstate's `@xstate.microstep` events. */
  readonly inspect: ((event: InspectionEvent) => void) | undefined;

  /**
   * `emitted` hears what the machine emits (`clipStarted`, `stateChanged`, …), after the
   * snapshot has moved on. The initial state's entry actions run here, as an actor's start.
   */
  constructor(
    input: BadgeInput,
    emitted: (event: BadgeEmitted) => void,
    inspect?: (event: InspectionEvent) => void,
    resumed?: PersistedBadge,
  ) {
    this.#emitted = emitted;
    this.inspect = inspect;
    if (resumed) {
      // A restored badge is where it was: no entry action runs again (decision FS3).
      this.#snapshot = resolvedState(resumed, input.io);
      return;
    }
    this.#advance(() => badgeMachine.getInitialSnapshot(scope, input));
    this.#drain();
  }

  /** The machine's persisted snapshot without its io: plain JSON data (decision FS3). */
  persisted(): PersistedBadge {
    const { io: _io, ...context } = this.#snapshot.context;
    return { value: this.#snapshot.value, context };
  }

  get snapshot(): Snapshot {
    return this.#snapshot;
  }

  /** As an actor's: what actions read as `self.getSnapshot()` is the state they left. */
  getSnapshot(): Snapshot {
    return this.#snapshot;
  }

  /** Takes the event now, or after the one in hand when called from an action or listener. */
  send(event: BadgeEvent): void {
    if (this.#stopped) return;
    if (this.#busy) {
      this.#waiting ??= [];
      this.#waiting.push(event);
      return;
    }
    this.#take(event);
    this.#drain();
  }

  /** From now on, events are ignored (an actor's `stop`). */
  stop(): void {
    this.#stopped = true;
    this.#waiting = undefined;
  }

  #drain(): void {
    let next = this.#waiting?.shift();
    while (next && !this.#stopped) {
      this.#take(next);
      next = this.#waiting?.shift();
    }
  }

  #take(event: BadgeEvent): void {
    this.#advance(() => badgeMachine.transition(this.#snapshot, event, scope));
  }

  /** One step: the transition `compute`s, then its actions are carried out, busy throughout. */
  #advance(compute: () => Snapshot): void {
    this.#busy = true;
    try {
      const { snapshot, taken } = this.#collect(compute);
      this.#carryOut(taken, () => {
        this.#snapshot = snapshot;
      });
    } finally {
      this.#busy = false;
    }
  }

  /** Runs `transition` with this runner as `self`, and keeps the actions it decided. */
  #collect(transition: () => Snapshot): { snapshot: Snapshot; taken: ExecutableAction[] } {
    const outer = { collecting, inspecting, self: scopeFields.self };
    collecting = [];
    inspecting = this;
    scopeFields.self = this;
    try {
      return { snapshot: transition(), taken: collecting };
    } finally {
      ({ collecting, inspecting } = outer);
      scopeFields.self = outer.self;
    }
  }

  /**
   * Custom actions first, in order, while the snapshot is still the old one (an actor runs
   * them mid-transition); then the new snapshot; then the emitted events, as an actor's
   * deferred effects.
   */
  #carryOut(taken: ExecutableAction[], settle: () => void): void {
    for (const action of taken) {
      if (action.type !== 'xstate.emit') action.exec?.(action.info, action.params);
    }
    settle();
    for (const action of taken) {
      if (action.type === 'xstate.emit')
        this.#emitted((action.params as { event: BadgeEmitted }).event);
    }
  }
}

/**
 * Listeners by emitted type. A fleet subscribes to every badge while it connects and lets go
 * once welcomed: what nobody listens to any more is dropped, so 50,000 badges keep no empty
 * maps.
 */
export class EmittedListeners<E extends { type: string } = BadgeEmitted> {
  #byType: Map<string, Set<(event: E) => void>> | undefined;

  on<T extends E['type']>(
    type: T,
    listener: (event: Extract<E, { type: T }>) => void,
  ): { unsubscribe(): void } {
    this.#byType ??= new Map();
    const byType = this.#byType;
    let set = byType.get(type);
    if (!set) {
      set = new Set();
      byType.set(type, set);
    }
    const entry = listener as (event: E) => void;
    set.add(entry);
    return {
      unsubscribe: () => {
        const current = this.#byType;
        if (!set.delete(entry) || set.size > 0 || !current || current.get(type) !== set) return;
        current.delete(type);
        if (current.size === 0) this.#byType = undefined;
      },
    };
  }

  tell(event: E): void {
    const set = this.#byType?.get(event.type);
    if (!set) return;
    // The listeners as they were when the event came (one may subscribe another); a lone one
    // (a fleet's count of plays, on each of its badges) is called without copying the set.
    if (set.size === 1) {
      set.values().next().value!(event);
      return;
    }
    for (const listener of [...set]) listener(event);
  }
}
