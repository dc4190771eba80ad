/**
 * What the machine stepper (decision SC5) reads of an xstate machine's definition, the walks it
 * makes through its states, and the check that a machine stays inside the subset it runs.
 */

/** The parts of an xstate state node this reads. */
export interface StateNodeLike {
  id: string;
  key: string;
  type: string;
  order: number;
  parent?: StateNodeLike;
  states: Record<string, StateNodeLike>;
  entry: unknown[];
  exit: unknown[];
  invoke: unknown[];
  transitions: Map<string, TransitionLike[]>;
  always?: TransitionLike[];
  initial?: { target: StateNodeLike[]; actions: unknown[] };
  config: { after?: unknown; history?: unknown };
}

/** The parts of an xstate transition definition this reads. */
export interface TransitionLike {
  source: StateNodeLike;
  target?: readonly StateNodeLike[];
  actions: readonly unknown[];
  guard?: unknown;
  reenter?: boolean;
  eventType: string;
}

/** The parts of an xstate machine this reads. */
export interface MachineLike {
  root: StateNodeLike;
  config: { context?: unknown };
  implementations: {
    actions: Record<string, unknown>;
    guards: Record<string, unknown>;
  };
}

/** Refuses a machine that uses what the stepper does not interpret, naming what it found. */
export function checkSubset(machine: MachineLike, node: StateNodeLike = machine.root): void {
  const where = `state ${node.id}`;
  if (!['compound', 'atomic'].includes(node.type))
    throw new Error(`the machine stepper does not run ${node.type} states (${where})`);
  if (node.config.after)
    throw new Error(`the machine stepper does not run delayed transitions (${where})`);
  if (node.invoke.length > 0)
    throw new Error(`the machine stepper does not run invoked actors (${where})`);
  for (const t of node.always ?? []) {
    checkGuard(machine, t.guard, where);
  }
  for (const [type, list] of node.transitions) {
    for (const t of list) {
      checkGuard(machine, t.guard, where);
    }
    if (type.includes('*'))
      throw new Error(`the machine stepper does not match wildcard events (${where})`);
    for (const t of list)
      if (t.reenter) throw new Error(`the machine stepper does not re-enter (${where}, ${type})`);
  }
  for (const child of Object.values(node.states)) checkSubset(machine, child);
}

/** A guard must be a plain function, inline or by name (not `and`, `or`, `not`, …). */
function checkGuard(machine: MachineLike, guard: unknown, where: string): void {
  if (guard === undefined) return;
  const check =
    typeof guard === 'function' ? guard : machine.implementations.guards[named(guard).name];
  if (typeof check !== 'function' || 'check' in check)
    throw new Error(`the machine stepper runs only guards that are functions (${where})`);
}

/** Every list of actions the definition holds: entries, exits, initial and transition actions. */
export function allActions(node: StateNodeLike): (readonly unknown[])[] {
  const lists: (readonly unknown[])[] = [node.entry, node.exit];
  if (node.initial) lists.push(node.initial.actions);
  for (const t of node.always ?? []) lists.push(t.actions);
  for (const list of node.transitions.values()) for (const t of list) lists.push(t.actions);
  for (const child of Object.values(node.states)) lists.push(...allActions(child));
  return lists;
}

/** A compound state's initial child, its initial child, and so on down. */
export function initialDescendants(node: StateNodeLike): StateNodeLike[] {
  const found: StateNodeLike[] = [];
  for (let at = node; at.type === 'compound'; ) {
    at = at.initial!.target[0]!;
    found.push(at);
  }
  return found;
}

/** An action's or guard's name and params, written as a string or as `{ type, params }`. */
export function named(def: unknown): { name: string; params: unknown } {
  if (typeof def === 'string') return { name: def, params: undefined };
  const { type, params } = def as { type: string; params?: unknown };
  return { name: type, params };
}

/** A state's proper ancestors, nearest first, the root last. */
export function ancestors(node: StateNodeLike): StateNodeLike[] {
  const found: StateNodeLike[] = [];
  for (let at = node.parent; at; at = at.parent) found.push(at);
  return found;
}

/** Strictly below `ancestor` (xstate's isDescendant). */
export function isDescendant(node: StateNodeLike, ancestor: StateNodeLike): boolean {
  for (let at = node.parent; at; at = at.parent) if (at === ancestor) return true;
  return false;
}

/**
 * The state a transition stays within (xstate's getTransitionDomain, without history or
 * re-entry): its source when every target is the source or below it, else the nearest state
 * that holds the targets and the source.
 */
export function transitionDomain(t: TransitionLike, root: StateNodeLike): StateNodeLike {
  const targets = t.target ?? [];
  if (targets.every((target) => target === t.source || isDescendant(target, t.source)))
    return t.source;
  const [head, ...tail] = [...targets, t.source];
  for (const candidate of ancestors(head!))
    if (tail.every((node) => isDescendant(node, candidate))) return candidate;
  return root;
}
