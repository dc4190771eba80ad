#!/usr/bin/env node
// The installed package runs the compiled CLI (dist/). In a checkout of the repository, where
// the TypeScript sources sit beside this folder, it runs them through tsx (a dev dependency):
// what runs is always the code being edited, never a stale build.
import { existsSync } from 'node:fs';

const source = new URL('../cli/badge-sim.ts', import.meta.url);
if (existsSync(source)) {
  const { register } = await import('tsx/esm/api');
  register();
  await import(source.href);
} else {
  // A crash's stack trace names the TypeScript sources (the maps carry them), for bug reports;
  // it costs about 0.1 s of start-up (decision Q13).
  process.setSourceMapsEnabled(true);
  await import('../dist/cli/badge-sim.js');
}
