/**
 * Mutation testing (`npm run mutation`): StrykerJS mutates the pure decision code and the fence path,
 * and each mutant must make at least one unit test fail. Results, the HTML report and the incremental
 * file live in reports/mutation/ (git-ignored); test/mutation/summary.ts prints the score per folder and
 * every surviving mutant at the end.
 *
 * @type {import('@stryker-mutator/api/core').PartialStrykerOptions}
 */
export default {
  testRunner: 'vitest',
  vitest: { configFile: 'test/mutation/vitest.config.ts', related: false },
  mutate: [
    'lib/domain/**/*.ts',
    'lib/app/fence/{fence-step,observe,act,audit,run-loop}.ts',
    'lib/app/unfence/unfence-step.ts',
    // Barrels only re-export: nothing to mutate.
    '!lib/domain/**/index.ts',
  ],
  coverageAnalysis: 'perTest',
  // Static mutants (module-level tables and constants, evaluated once at import) cannot be traced to the
  // tests that reach them, so each re-runs every test: about a sixth of the mutants and half of the time.
  // They are left out by default; set this to false to include them (the fence table itself is also
  // judged by test/unit/domain/table-ablation.test.ts, rule by rule).
  ignoreStatic: true,
  // The development machine has 2 cores shared with labs and CI: one test runner at a time (and run it
  // under `nice -n 19`).
  concurrency: 1,
  // Busy cores make a run's time vary; a generous margin keeps a slow run from passing for a timeout.
  timeoutMS: 20_000,
  dryRunTimeoutMinutes: 20,
  incremental: true,
  incrementalFile: 'reports/mutation/incremental.json',
  reporters: ['progress', 'html', 'json'],
  htmlReporter: { fileName: 'reports/mutation/index.html' },
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  tempDirName: '.stryker-tmp',
  // Any other Stryker run's sandbox (a narrower run with its own tempDirName) is not part of the project.
  ignorePatterns: ['reports', '.lab', 'cdk.out', 'dist', 'lab/go', '.stryker-tmp*'],
};
