// One badge-sim container for the whole test run; tests read its URL with inject('badgeSimUrl')
// and the token of its control API (random, set by the module) with inject('badgeSimControlToken').
// In vitest.config.ts: test: { globalSetup: ['./global-setup.ts'] }
import { BadgeSimContainer } from 'badge-sim/testcontainers';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    badgeSimUrl: string;
    badgeSimControlToken: string;
  }
}

export default async function setup(project: TestProject) {
  const stub = await new BadgeSimContainer(process.env.BADGE_SIM_IMAGE ?? 'badge-sim:latest')
    .withSeed(1)
    .withQuietLog()
    .start();
  project.provide('badgeSimUrl', stub.url);
  project.provide('badgeSimControlToken', stub.controlToken);
  return async () => {
    await stub.stop();
  };
}
