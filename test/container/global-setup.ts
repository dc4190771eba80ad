/**
 * The container project's global setup: the README's example (one container for the run),
 * after making sure there is an engine and an image. .ci/run builds the image from local
 * parts; on a laptop with Docker it is built here from the Dockerfile, as a user would.
 */
import { spawnSync } from 'node:child_process';
import type { TestProject } from 'vitest/node';
import setupExample from '../../examples/vitest-container/global-setup.ts';
import { dockerUnavailable, imageExists } from '../support/docker.ts';

const IMAGE = process.env.BADGE_SIM_IMAGE ?? 'badge-sim:latest';

export default async function setup(project: TestProject) {
  const noDocker = dockerUnavailable();
  if (noDocker)
    throw new Error(
      `badge-sim: CI=true and ${noDocker}: the container tests need it (.ci/run installs docker.io and starts dockerd)`,
    );
  if (!imageExists(IMAGE)) {
    console.log(`badge-sim: building ${IMAGE} from the Dockerfile (npm run build first)…`);
    const compiled = spawnSync('npm', ['run', 'build'], { stdio: 'inherit' });
    if (compiled.status !== 0) throw new Error('badge-sim: npm run build failed');
    const build = spawnSync('docker', ['build', '-t', IMAGE, '.'], { stdio: 'inherit' });
    if (build.status !== 0) throw new Error(`badge-sim: docker build -t ${IMAGE} . failed`);
  }
  process.env.BADGE_SIM_IMAGE = IMAGE;
  project.provide('badgeSimImage', IMAGE);
  const started = performance.now();
  const teardown = await setupExample(project);
  console.log(
    `badge-sim: container of ${IMAGE} started by testcontainers at ${project.getProvidedContext().badgeSimUrl}, ready in ${Math.round(performance.now() - started)} ms`,
  );
  return teardown;
}

declare module 'vitest' {
  export interface ProvidedContext {
    badgeSimImage: string;
  }
}
