#!/usr/bin/env node
// The installed package runs the compiled CLI (dist/, one bundle). In a checkout of the
// repository, where the TypeScript sources sit beside this folder, it runs them through tsx (a
// dev dependency): what runs is always the code being edited, never a stale build.
//
// Node's source maps stay off: a crash's stack trace is mapped to the TypeScript lines when it
// happens (cli/crash-trace.ts), which costs nothing until then (decision Q13).
import { existsSync } from 'node:fs';

const source = new URL('../cli/badge-sim.ts', import.meta.url);
if (existsSync(source)) {
  const { register } = await import('tsx/esm/api');
  register();
  await import(source.href);
} else {
  await import('../dist/cli/badge-sim.js');
}
