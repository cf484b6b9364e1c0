// vitest globalSetup of the container project: builds the image once for all its files
// (test/container/podman.ts), before any of them starts, so they never build it twice at once.
// Provides `containerImage` (the tag), or `containerSkip` (why podman cannot run here: the
// files then skip with that message). PAYSANDBOX_TEST_IMAGE=<tag> tests an image built before
// (by hand, or by a release job) instead of building one.
import type { TestProject } from 'vitest/node';
import { buildImage, IMAGE, podmanProblem } from '../container/podman.js';

/** Builds the image (on podman's cached layers while the week's base and package-lock.json stay), or says why it cannot. */
export default async function setup(project: TestProject): Promise<void> {
  const problem = podmanProblem();
  project.provide('containerSkip', problem ?? '');
  const given = process.env.PAYSANDBOX_TEST_IMAGE;
  project.provide('containerImage', given || IMAGE);
  if (problem) {
    console.warn(`test/container skipped: ${problem}`);
    return;
  }
  if (given) return;
  await buildImage((line) => console.log(`container: ${line}`));
}
