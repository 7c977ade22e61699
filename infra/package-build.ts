/**
 * The npm package's `kube-fencer/cdk`: the `KubeFencer` construct bundled into dist/cdk/index.js
 * (aws-cdk-lib and constructs left to the app that imports it), its type declarations in
 * dist/cdk/types/, and the Lambda bundles it deploys, built ahead in dist/lambda/<function>/ (an app
 * that imports the construct has neither the sources nor tsx to bundle them at synth).
 */
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { builtAfterSources } from './build-freshness.js';
import { bundleFunction, ESBUILD, FUNCTIONS } from './bundling.js';
import { writeThirdPartyNotices } from './third-party-notices.js';

export const CDK_DIST = join('dist', 'cdk');
export const LAMBDA_DIST = join('dist', 'lambda');
const ENTRY = 'index.js';

/** Builds dist/cdk/ and dist/lambda/ anew; returns the construct bundle's size in bytes. */
export async function buildCdkPackage(root: string): Promise<number> {
  for (const dir of [CDK_DIST, LAMBDA_DIST]) rmSync(join(root, dir), { recursive: true, force: true });
  const result = await build({
    absWorkingDir: root,
    entryPoints: ['infra/cdk.ts'],
    outfile: join(CDK_DIST, ENTRY),
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    mainFields: [...ESBUILD.mainFields],
    banner: { js: ESBUILD.banner },
    // One aws-cdk-lib and one constructs in an app: the app's own.
    external: ['aws-cdk-lib', 'aws-cdk-lib/*', 'constructs'],
    // The construct deploys the bundles of dist/lambda/ rather than bundling the sources at synth.
    define: { 'globalThis.KUBE_FENCER_PREBUILT_LAMBDAS': 'true' },
    minifySyntax: true,
    legalComments: 'none',
    metafile: true,
    logLevel: 'error',
  });
  writeThirdPartyNotices(root, 'the KubeFencer construct (dist/cdk/)', result.metafile, join(root, CDK_DIST));
  for (const name of FUNCTIONS) await bundleFunction(root, name, join(root, LAMBDA_DIST, name));
  execFileSync(
    process.execPath,
    [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.cdk.json'],
    {
      cwd: root,
      stdio: 'inherit',
    },
  );
  return Object.values(result.metafile.outputs).reduce((sum, o) => sum + o.bytes, 0);
}

/** What the package is made from: if none changed since dist/cdk/ was written, it is current. */
const SOURCES = ['infra', 'lib', 'functions', 'deploy/rbac.yaml', 'package.json', 'package-lock.json'];

/** Builds dist/cdk/ and dist/lambda/ unless they are newer than every source. */
export async function ensureCdkPackageBuilt(root: string): Promise<'built' | 'current'> {
  if (builtAfterSources(root, join(CDK_DIST, ENTRY), SOURCES)) return 'current';
  await buildCdkPackage(root);
  return 'built';
}
