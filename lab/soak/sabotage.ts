/**
 * Deliberately broken builds of the fencer, to show that the soak's checker finds what it checks: each
 * sabotage is a source edit made while esbuild bundles the functions and the CLI (the checked-in code
 * is never touched), and fails the build loudly when the code it edits has changed, so a sabotage can
 * never quietly become the unbroken fencer.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Plugin } from 'esbuild';
import { REPO_ROOT } from '../paths.js';

interface Patch {
  /** The source file, from the repository root. */
  readonly file: string;
  readonly find: string | RegExp;
  readonly replace: string;
}

interface Sabotage {
  /** What is broken, for the report. */
  readonly what: string;
  /** The invariant of the checker that should catch it, and in which world. */
  readonly caughtBy: string;
  readonly patches: readonly Patch[];
}

export const SABOTAGES = {
  'no-blast-radius': {
    what: 'the fence table without its rule unhealthy-within-limits (a rule left out)',
    caughtBy: 'unhealthy-over-limit: a power-off while more nodes are unhealthy than the limits allow',
    patches: [{ file: 'lib/domain/fence-table.ts', find: /^ {2}unhealthyWithinLimits,\n/m, replace: '' }],
  },
  'unowned-taint-removal': {
    what: "un-fence removes every out-of-service taint of the node, not exactly the fencer's own",
    caughtBy: "foreign-taint-removed: someone else's maintenance taint gone from a node the fencer un-fenced",
    patches: [
      {
        file: 'lib/adapters/kubernetes/taints.ts',
        find: '!sameTaint(t, taint)',
        replace: 't.key !== taint.key',
      },
    ],
  },
  'blocklist-skipped': {
    what: "the blocklist believed without being added (every entry taken as listed), and the image's watchers not checked",
    caughtBy: 'released-while-writing: a bare-metal node tainted while its client still writes (RBD world)',
    patches: [
      {
        file: 'lib/adapters/ceph-rbd/blocklist.ts',
        find: /const listed = byEntry\.get\(.*\);/,
        replace: "const listed = { until: '9999-12-31T00:00:00Z' };",
      },
      { file: 'lib/domain/fence-table.ts', find: /^ {2}watchersGone,\n/m, replace: '' },
    ],
  },
} as const satisfies Record<string, Sabotage>;
export type SabotageName = keyof typeof SABOTAGES;

export const isSabotage = (name: string): name is SabotageName => name in SABOTAGES;

/** The esbuild plugin that makes the sabotage's edits as the sources are loaded. */
export function sabotagePlugin(name: SabotageName): Plugin {
  const patches: readonly Patch[] = SABOTAGES[name].patches;
  const files = new Map<string, Patch[]>();
  for (const p of patches) {
    const path = join(REPO_ROOT, p.file);
    files.set(path, [...(files.get(path) ?? []), p]);
  }
  return {
    name: `sabotage-${name}`,
    setup(build) {
      let edited = 0;
      build.onEnd((result) => {
        if (result.errors.length === 0 && edited === 0) {
          throw new Error(`sabotage ${name}: this bundle holds none of ${[...files.keys()].join(', ')}`);
        }
      });
      build.onLoad({ filter: /\.ts$/ }, (args) => {
        const edits = files.get(args.path);
        if (!edits) return undefined;
        edited += 1;
        let source = readFileSync(args.path, 'utf8');
        for (const edit of edits) {
          const edited = source.replace(edit.find, edit.replace);
          if (edited === source) {
            throw new Error(
              `sabotage ${name}: ${edit.file} no longer has ${String(edit.find)}; update the sabotage`,
            );
          }
          source = edited;
        }
        return { contents: source, loader: 'ts' };
      });
    },
  };
}
