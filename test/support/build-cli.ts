/**
 * Vitest global setup: the tests that run `fencer` run the built CLI (bin/fencer.js → dist/), and the
 * package tests install `kube-fencer/cdk` (dist/cdk/, dist/lambda/), so both are built first unless
 * they are newer than every source (then this costs a few milliseconds).
 */
import { ensureCliBuilt } from '../../cli/bundle.js';
import { ensureCdkPackageBuilt } from '../../infra/package-build.js';
import { REPO_ROOT } from '../../lab/paths.js';

export default async function setup(): Promise<void> {
  await ensureCliBuilt(REPO_ROOT);
  await ensureCdkPackageBuilt(REPO_ROOT);
}
