/**
 * How the Function Compute functions are bundled: one esbuild build for the ROS stack, the bench and
 * the tests, so what is measured and tested is what is deployed. Function Compute's newest Node.js
 * runtime is `nodejs20`, so the bundles target Node.js 20 (the AWS bundles target 22). Alibaba's SDKs
 * are slimmed as the ECS one is for the AWS-side bench (infra/bundling.ts): only the operations the
 * fencer calls keep their models and client methods. No ROS import here.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type BuildResult, build, type Metafile, type Plugin } from 'esbuild';
import { pruneEcsClient, slimAlibabaEcs } from '../infra/bundling.js';
import { writeThirdPartyNotices } from '../infra/third-party-notices.js';
import { ECS_OPERATIONS } from '../lib/adapters/alicloud-ecs/sdk.js';
import { FC_OPERATIONS } from '../lib/adapters/alicloud-fc/sdk.js';

/** The handler folders under functions-fc/. */
export const FC_FUNCTIONS = ['event-router', 'health-check', 'manual', 'sweep', 'run'] as const;
export type FcFunctionName = (typeof FC_FUNCTIONS)[number];

/** The bundle's file name in the code package; the handler is `index.handler` (ESM, `.mjs`). */
export const FC_BUNDLE_FILE = 'index.mjs';
export const FC_HANDLER = 'index.handler';
/** Function Compute's runtime, and the esbuild target that matches it. */
export const FC_RUNTIME = 'nodejs20';
export const FC_TARGET = 'node20';

/**
 * Keeps only the Function Compute operations the fencer calls (`InvokeFunction`, `GetAsyncTask`): the
 * SDK's `client.js` requires a barrel of all its models and has a method per operation, like ECS's.
 */
export const slimAlibabaFc = (operations: readonly string[]): Plugin => ({
  name: 'slim-alibaba-fc',
  setup(builder) {
    builder.onResolve({ filter: /^\.\/models\/model$/ }, (args) => {
      if (!/[\\/]@alicloud[\\/]fc20230330[\\/]dist$/.test(args.resolveDir)) return undefined;
      return { path: join(args.resolveDir, 'models', 'slim-model.js'), namespace: 'slim-alibaba-fc-models' };
    });
    builder.onLoad({ filter: /.*/, namespace: 'slim-alibaba-fc-models' }, (args) => {
      const dir = join(args.path, '..');
      // An operation with custom headers (InvokeFunction) has a Headers model too; nested models
      // (GetAsyncTask's AsyncTask) are required by the files that use them.
      const models = operations
        .flatMap((op) => [`${op}Request`, `${op}Response`, `${op}Headers`])
        .filter((m) => existsSync(join(dir, `${m}.js`)));
      const requires = models.map((m) => `require(${JSON.stringify(`./${m}.js`)})`).join(',');
      return { contents: `Object.assign(exports, ${requires});`, loader: 'js', resolveDir: dir };
    });
    builder.onLoad({ filter: /[\\/]@alicloud[\\/]fc20230330[\\/]dist[\\/]client\.js$/ }, async (args) => ({
      contents: pruneEcsClient(await readFile(args.path, 'utf8'), operations),
      loader: 'js',
    }));
  },
});

/** The plugins every Function Compute bundle is built with. */
export const fcPlugins = (): Plugin[] => [slimAlibabaEcs(ECS_OPERATIONS), slimAlibabaFc(FC_OPERATIONS)];

/**
 * Bundles functions-fc/`name` into `outDir`/index.mjs, as deployed (the lab's soak may add plugins to
 * build a deliberately broken function); returns esbuild's metafile.
 */
export async function bundleFcFunction(
  root: string,
  name: FcFunctionName,
  outDir: string,
  extraPlugins: readonly Plugin[] = [],
): Promise<Metafile> {
  const result: BuildResult<{ metafile: true }> = await build({
    absWorkingDir: root,
    entryPoints: [join('functions-fc', name, 'index.ts')],
    outfile: join(outDir, FC_BUNDLE_FILE),
    bundle: true,
    platform: 'node',
    format: 'esm',
    minify: true,
    target: FC_TARGET,
    mainFields: ['module', 'main'],
    banner: { js: "import{createRequire as __cr}from'node:module';const require=__cr(import.meta.url);" },
    plugins: [...fcPlugins(), ...extraPlugins],
    metafile: true,
    logLevel: 'error',
  });
  // The bundle inlines its dependencies: their notices are deployed with it.
  writeThirdPartyNotices(root, `the ${name} Function Compute function`, result.metafile, outDir);
  return result.metafile;
}
