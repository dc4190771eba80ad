/**
 * Loaded into the stub process of `npm run bench:soak` only (`node --expose-gc --import tsx
 * --import ./bench/soak-probe.ts bin/badge-sim.js stub …`): answers `{type: 'memory'}` on the
 * IPC channel with `process.memoryUsage()` after a full GC. The product has no memory
 * endpoint; this file is never part of it.
 */
import v8 from 'node:v8';

const gc = (globalThis as { gc?: () => void }).gc;

process.on('message', (message: unknown) => {
  const asked = message as { type?: string; id?: number } | null;
  if (asked?.type !== 'memory') return;
  // Twice: the first collection may leave work for finalisers.
  gc?.();
  gc?.();
  const { rss, heapUsed, heapTotal, external, arrayBuffers } = process.memoryUsage();
  // What RSS holds beside the heap's objects: compiled code, and V8's own malloc'd memory.
  const spaces = v8.getHeapSpaceStatistics();
  const space = (name: string) => spaces.find((s) => s.space_name === name)?.space_size ?? 0;
  const code = spaces.find((s) => s.space_name === 'code_space');
  process.send?.({
    type: 'memory',
    id: asked.id,
    gc: gc !== undefined,
    rss,
    heapUsed,
    heapTotal,
    external,
    arrayBuffers,
    codeSpace: code?.space_used_size ?? 0,
    malloced: v8.getHeapStatistics().malloced_memory,
    // Where heap total goes: the young generation grows with the allocation rate, old space
    // with what lives (and its fragments).
    newSpace: space('new_space'),
    oldSpace: space('old_space'),
  });
});
// The channel must not keep the stub alive: it stops on SIGTERM like any stub.
process.channel?.unref();
