import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';
import { cacheRoot } from './lab/paths.js';

/**
 * The lab suites (integration, cli, e2e) spend most of their time waiting on a real control plane: a
 * Lease to age, a controller to act. Each file starts its own lab (own run folder, ports, network
 * namespaces and Ceph cluster), so several files can run at once without sharing any state. Four at a
 * time keep this 2-core machine busy (about three quarters of its CPU) without starving the labs' own
 * timers, because no more than two labs start at once (lab/start-slots.ts: a start is a lab's busiest
 * moment). `KUBE_FENCER_LAB_WORKERS` overrides it (1 runs them one at a time).
 */
const LAB_WORKERS = Number(process.env.KUBE_FENCER_LAB_WORKERS ?? 4);
if (!Number.isInteger(LAB_WORKERS) || LAB_WORKERS < 1) {
  throw new Error(`KUBE_FENCER_LAB_WORKERS must be a whole number of at least 1, not ${LAB_WORKERS}`);
}

/**
 * The pure projects first, on every core (vitest's default leaves one core idle: one worker on 2 cores);
 * then the lab projects together, sharing one pool of workers.
 */
const PURE = { sequence: { groupOrder: 0 }, maxWorkers: availableParallelism() };
const LAB = { sequence: { groupOrder: 1 }, maxWorkers: LAB_WORKERS };

export default defineConfig({
  // Vitest keeps each file's last duration here and starts the longest files first; outside the
  // repository (with the lab's binaries) so that a fresh clone on the same machine starts with it.
  cacheDir: join(cacheRoot(), 'vite'),
  test: {
    reporters: ['default', './test/support/timing-reporter.ts', './test/support/summary-reporter.ts'],
    // The CLI tests and the lab scenarios run the built `fencer`: build it when the sources changed.
    globalSetup: ['./test/support/build-cli.ts'],
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          // Property tests walk thousands of generated runs; a busy 2-core machine needs headroom.
          testTimeout: 60_000,
          ...PURE,
        },
      },
      {
        test: {
          // CDK synthesis bundles every function with esbuild: seconds each on a busy machine.
          name: 'infra',
          include: ['test/infra/**/*.test.ts'],
          setupFiles: ['./test/support/infra-tmpdir.ts'],
          testTimeout: 180_000,
          hookTimeout: 180_000,
          ...PURE,
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          testTimeout: 120_000,
          hookTimeout: 300_000,
          ...LAB,
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
          ...LAB,
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          testTimeout: 300_000,
          hookTimeout: 600_000,
          ...LAB,
        },
      },
    ],
  },
});
