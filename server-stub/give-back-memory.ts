/**
 * After `POST /_stub/reset`, the memory the stub let go goes back to the system (decision H11).
 * Without help it would not: V8 collects its old space only when it next fills, and keeps its
 * young generation at the size the load grew it to (32 MiB) until a collection that comes after
 * a quiet spell, which an idle stub never makes. So a reset asks for a full collection at once,
 * and one more when the stub has been quiet a while, after which V8's memory reducer shrinks
 * the young generation (measured by `npm run bench:startup`: back to idle RSS within about 20 s).
 *
 * The collector is V8's own `gc`, made reachable at run time (`--expose-gc` set on the running
 * V8 only applies to new contexts: one is made to fetch it). A full collection of an idle stub
 * takes a few milliseconds; resets close together (a suite resetting before each test) collect
 * at most once a QUIET_MS, and the follow-up waits for the last of them.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

export const QUIET_MS = 5_000;

export interface MemoryGiver {
  /** After a reset: collect now (at most once a QUIET_MS), and again once the stub is quiet. */
  afterReset(): void;
  /** Stops the follow-up (the stub is closing). */
  stop(): void;
}

/**
 * A giver using `collect` (V8's full collection by default, fetched at the first reset: a stub
 * nobody resets never touches V8's flags) and the real clock of the process.
 */
export function memoryGiver(given?: () => void): MemoryGiver {
  let last = Number.NEGATIVE_INFINITY;
  let followUp: NodeJS.Timeout | undefined;
  let collect = given;
  const collectNow = () => {
    last = performance.now();
    collect?.();
  };
  return {
    afterReset() {
      collect ??= v8Collector();
      if (collect === undefined) return;
      if (performance.now() - last >= QUIET_MS) collectNow();
      clearTimeout(followUp);
      // A transport-level timer of the process, not of the emulated clock: it must not keep the
      // process alive.
      followUp = setTimeout(collectNow, 2 * QUIET_MS).unref();
    },
    stop() {
      clearTimeout(followUp);
    },
  };
}

let collector: (() => void) | null | undefined;

/** V8's full collection, or undefined where it cannot be reached. */
function v8Collector(): (() => void) | undefined {
  if (collector === undefined) {
    try {
      const exposed = (globalThis as { gc?: () => void }).gc;
      if (typeof exposed === 'function') collector = exposed;
      else {
        setFlagsFromString('--expose-gc');
        const made: unknown = runInNewContext('gc');
        // Back as it was: V8 checks its flags before it takes a code cache (Q18), and the
        // function made stays usable.
        setFlagsFromString('--no-expose-gc');
        collector = typeof made === 'function' ? (made as () => void) : null;
      }
    } catch {
      collector = null;
    }
  }
  return collector ?? undefined;
}
