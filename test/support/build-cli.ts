/**
 * Vitest global setup: the tests that run `fencer` run the built CLI (bin/fencer.js → dist/), so it
 * is built first unless dist/ is newer than every source (then this costs a few milliseconds).
 */
import { ensureCliBuilt } from '../../cli/bundle.js';
import { REPO_ROOT } from '../../lab/paths.js';

export default async function setup(): Promise<void> {
  await ensureCliBuilt(REPO_ROOT);
}
