/**
 * Loaded into the stub process of `npm run bench:soak` only (`node --expose-gc --import tsx
 * --import ./bench/soak-probe.ts bin/badge-sim.js stub …`): answers `{type: 'memory'}` on the
 * IPC channel with `process.memoryUsage()` after a full GC. The product has no memory
 * endpoint; this file is never part of it.
 */
const gc = (globalThis as { gc?: () => void }).gc;

process.on('message', (message: unknown) => {
  const asked = message as { type?: string; id?: number } | null;
  if (asked?.type !== 'memory') return;
  // Twice: the first collection may leave work for finalisers.
  gc?.();
  gc?.();
  const { rss, heapUsed, heapTotal, external, arrayBuffers } = process.memoryUsage();
  process.send?.({
    type: 'memory',
    id: asked.id,
    gc: gc !== undefined,
    rss,
    heapUsed,
    heapTotal,
    external,
    arrayBuffers,
  });
});
// The channel must not keep the stub alive: it stops on SIGTERM like any stub.
process.channel?.unref();
