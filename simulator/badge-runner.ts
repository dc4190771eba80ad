/**
 * Runs one badge machine without an xstate actor: the badge is its state and context, advanced
 * by the machine stepper (decision SC5) on the machine's own definition, and the runner carries
 * out the actions a step returns, the way an actor would. The machine stays the single source
 * of a badge's behaviour; what goes is the actor's per-badge apparatus (a system, a mailbox,
 * observers, about twenty closures: 4.8 KB of heap a badge against 0.9 KB here, decision SC4)
 * and xstate's general interpreter (a quarter of a scenario's time, decision SC5).
 *
 * Faithful to the actor where the badge relies on it (a test runs both on random events and
 * compares): custom actions run in order, then the emitted events reach their listeners once
 * the new state is in place; an event sent while the runner is busy waits its turn; a stopped
 * runner ignores events.
 */
import type { InspectionEvent } from 'xstate';
import {
  type BadgeContext,
  type BadgeEmitted,
  type BadgeEvent,
  type BadgeInput,
  badgeMachine,
} from './badge.machine.ts';
import type { MachineLike, StateNodeLike } from './machine-definition.ts';
import { MachineStepper, type MicrostepListener, type Stepped } from './machine-stepper.ts';

type StateValue = ReturnType<typeof badgeMachine.getInitialSnapshot>['value'];

/** A badge machine's state as a snapshot keeps it: its state value and its context but the io. */
export interface PersistedBadge {
  value: StateValue;
  context: Omit<BadgeContext, 'io'>;
}

/** The badge machine, read once for the process. */
const stepper = new MachineStepper<BadgeContext>(badgeMachine as unknown as MachineLike);

export class BadgeRunner {
  #leaf!: StateNodeLike;
  #context!: BadgeContext;
  #busy = false;
  #stopped = false;
  /** Events sent while busy (by an action, or a listener), in order; made when first needed. */
  #waiting: BadgeEvent[] | undefined;
  readonly #emitted: (event: BadgeEmitted) => void;
  /** Told of every transition taken (coverage), as xstate's `@xstate.microstep` events. */
  readonly inspect: ((event: InspectionEvent) => void) | undefined;
  readonly #microstep: MicrostepListener | undefined;

  /**
   * `emitted` hears what the machine emits (`clipStarted`, `stateChanged`, …), after the
   * state has moved on. The initial state's entry actions run here, as an actor's start.
   */
  constructor(
    input: BadgeInput,
    emitted: (event: BadgeEmitted) => void,
    inspect?: (event: InspectionEvent) => void,
    resumed?: PersistedBadge,
  ) {
    this.#emitted = emitted;
    this.inspect = inspect;
    this.#microstep = inspect
      ? (transitions, after, event) =>
          inspect({
            type: '@xstate.microstep',
            event,
            snapshot: { value: stepper.valueOf(after.leaf), context: after.context },
            _transitions: transitions,
          } as unknown as InspectionEvent)
      : undefined;
    if (resumed) {
      // A restored badge is where it was: no entry action runs again (decision FS3).
      this.#leaf = stepper.leafOf(resumed.value);
      this.#context = { ...resumed.context, io: input.io };
      return;
    }
    this.#advance(() => stepper.start(input, this, this.#microstep));
    this.#drain();
  }

  /** The machine's persisted snapshot without its io: plain JSON data (decision FS3). */
  persisted(): PersistedBadge {
    const { io: _io, ...context } = this.#context;
    return { value: this.#value, context };
  }

  get snapshot(): { value: StateValue; context: BadgeContext } {
    return { value: this.#value, context: this.#context };
  }

  /** As an actor's: what actions read as `self.getSnapshot()` is the state they left. */
  getSnapshot(): { value: StateValue; context: BadgeContext } {
    return this.snapshot;
  }

  get #value(): StateValue {
    return stepper.valueOf(this.#leaf) as StateValue;
  }

  /** Takes the event now, or after the one in hand when called from an action or listener. */
  send(event: BadgeEvent): void {
    if (this.#stopped) return;
    if (this.#busy) {
      this.#waiting ??= [];
      this.#waiting.push(event);
      return;
    }
    this.#advance(() => stepper.step(this.#leaf, this.#context, event, this, this.#microstep));
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
      const event = next;
      this.#advance(() => stepper.step(this.#leaf, this.#context, event, this, this.#microstep));
      next = this.#waiting?.shift();
    }
  }

  /**
   * One step, busy throughout: custom actions first, in order, while the state is still the
   * old one (an actor runs them mid-transition); then the new state; then the emitted events,
   * as an actor's deferred effects.
   */
  #advance(compute: () => Stepped<BadgeContext>): void {
    this.#busy = true;
    try {
      const out = compute();
      for (const action of out.actions) action.exec?.(action.info, action.params);
      this.#leaf = out.leaf;
      this.#context = out.context;
      for (const event of out.emitted) this.#emitted(event as BadgeEmitted);
    } finally {
      this.#busy = false;
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
