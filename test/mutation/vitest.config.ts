/**
 * The tests the mutation run (`npm run mutation`, stryker.config.mjs) judges each mutant with: the unit
 * tests that reach lib/domain and lib/app. The table-ablation test is left out: it re-runs every contract
 * property once per rule of the table (about 40 s a run), and the mutants it would catch are
 * the safety properties' own. Property tests run a tenth of their runs (FC_RUNS_SCALE, see
 * test/unit/domain/support/contract.ts) unless the caller sets it.
 */
import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  root: fileURLToPath(new URL('../..', import.meta.url)),
  test: {
    include: [
      'test/unit/domain/**/*.test.ts',
      'test/unit/app/**/*.test.ts',
      'test/unit/config/**/*.test.ts',
      // lib/domain's blocklist and access-error vocabularies are exercised through the adapters that speak them.
      'test/unit/adapters/ceph-rbd/blocklist.test.ts',
      'test/unit/adapters/kubernetes/permissions.test.ts',
    ],
    exclude: [...configDefaults.exclude, 'test/unit/domain/table-ablation.test.ts'],
    env: { FC_RUNS_SCALE: process.env.FC_RUNS_SCALE ?? '0.1' },
    // Stryker switches mutants at run time (no re-import per mutant); sharing modules between test files
    // saves re-evaluating lib/domain for every file of every mutant run.
    isolate: false,
    // A mutant can slow a property test down; Stryker's own timeout decides, not vitest's.
    testTimeout: 120_000,
  },
});
