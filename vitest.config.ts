import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    reporters: ['default', './test/support/summary-reporter.ts'],
    // The CLI tests and the lab scenarios run the built `fencer`: build it when the sources changed.
    globalSetup: ['./test/support/build-cli.ts'],
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          // Property tests walk thousands of generated runs; a busy 2-core machine needs headroom.
          testTimeout: 60_000,
        },
      },
      {
        test: {
          // CDK synthesis bundles every function with esbuild: seconds each on a busy machine.
          name: 'infra',
          include: ['test/infra/**/*.test.ts'],
          testTimeout: 180_000,
          hookTimeout: 180_000,
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          testTimeout: 120_000,
          hookTimeout: 300_000,
          fileParallelism: false,
        },
      },
      {
        test: {
          // The built `fencer` as an operator runs it: help, errors, completion, kubectl plugin, install,
          // the incident picture in a real browser; the cases that need an API server start a lab.
          name: 'cli',
          include: ['test/cli/**/*.test.ts'],
          testTimeout: 180_000,
          hookTimeout: 600_000,
          fileParallelism: false,
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          testTimeout: 300_000,
          hookTimeout: 600_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
