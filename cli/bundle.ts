/**
 * Builds the `fencer` command into dist/: one ESM bundle per command, loaded when the command runs
 * (esbuild code splitting on the commands' dynamic imports), every dependency inside, for Node.js
 * 20.19 and newer. `bin/fencer.js` checks the Node.js version, then imports dist/fencer.js; nothing
 * needs tsx or the devDependencies at run time. The chunks sit directly in dist/ so that code which
 * finds the repository from its own location (the lab, for `fencer demo`) finds it from there too.
 */
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { build, type Metafile, type Plugin } from 'esbuild';
import { builtAfterSources } from '../infra/build-freshness.js';
import { ESBUILD, inlineSchemaKeys } from '../infra/bundling.js';
import { writeThirdPartyNotices } from '../infra/third-party-notices.js';

/** Where the build goes, and its entry (what bin/fencer.js imports). */
export const DIST_DIR = 'dist';
export const CLI_ENTRY = 'fencer.js';

/** The oldest Node.js the built CLI runs on (kept equal to package.json `engines.node`). */
export const MIN_NODE = '20.19.0';

/**
 * Builds cli/main.ts into `outdir` (default `root`/dist), replacing the files there (not its folders:
 * dist/cdk/ and dist/lambda/ are the construct's, infra/package-build.ts); returns esbuild's metafile.
 * `extraPlugins`: the lab's soak builds a deliberately broken CLI elsewhere with them.
 */
export async function bundleCli(
  root: string,
  outdir = join(root, DIST_DIR),
  extraPlugins: readonly Plugin[] = [],
): Promise<Metafile> {
  if (existsSync(outdir)) {
    for (const entry of readdirSync(outdir, { withFileTypes: true })) {
      if (!entry.isDirectory()) rmSync(join(outdir, entry.name), { force: true });
    }
  }
  const result = await build({
    absWorkingDir: root,
    entryPoints: { fencer: 'cli/main.ts' },
    outdir,
    bundle: true,
    splitting: true,
    platform: 'node',
    format: 'esm',
    target: `node${MIN_NODE.split('.').slice(0, 2).join('.')}`,
    mainFields: [...ESBUILD.mainFields],
    banner: { js: ESBUILD.banner },
    plugins: [inlineSchemaKeys, ...extraPlugins],
    // Whitespace and syntax only: names stay, so `--debug` stack traces stay readable.
    minifyWhitespace: true,
    minifySyntax: true,
    legalComments: 'none',
    metafile: true,
    logLevel: 'error',
  });
  // The bundle inlines its dependencies: their notices go with it (and into the npm package, with dist/).
  writeThirdPartyNotices(root, 'the fencer CLI (dist/)', result.metafile, outdir);
  return result.metafile;
}

/** What the build is made from: if none changed since dist/ was written, the build is current. */
const SOURCES = ['cli', 'lib', 'lab', 'infra/bundling.ts', 'package.json', 'package-lock.json'];

/** Builds dist/ unless it is newer than every source (the test setup and the benches call this). */
export async function ensureCliBuilt(root: string): Promise<'built' | 'current'> {
  if (builtAfterSources(root, join(DIST_DIR, CLI_ENTRY), SOURCES)) return 'current';
  await bundleCli(root);
  return 'built';
}
