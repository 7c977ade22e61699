/**
 * How the functions are bundled: one esbuild build for the stack (through infra/bundle-function.ts),
 * bench/cold-start.ts and the bundle test, so what is measured and tested is what is deployed.
 * No CDK import.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type BuildResult, build, type Metafile, type Plugin } from 'esbuild';

/** How the functions run their bundle: with source maps applied to stack traces. */
export const NODE_OPTIONS = '--enable-source-maps';

/** The handler folders under functions/. */
export const FUNCTIONS = ['step', 'event-router', 'health-check', 'manual', 'sweep', 'alarm-sync'] as const;
export type FunctionName = (typeof FUNCTIONS)[number];

/** The bundle's file name in the asset; the Lambda handler is `index.handler`. */
export const BUNDLE_FILE = 'index.mjs';

/**
 * ESM, minified, for Node.js 22; `module` before `main` so the AWS SDK's ES builds are tree-shaken;
 * a `require` for the CommonJS dependencies; nothing external: the AWS SDK is bundled at the version
 * the tests ran against, not whatever the Lambda runtime ships. A linked source map (mappings only, no
 * sources: it is for stack traces) beside the bundle; the functions run with `--enable-source-maps`
 * ({@link NODE_OPTIONS}), so an error in the logs names our files and lines, not the minified ones.
 */
export const ESBUILD = {
  minify: true,
  sourcemap: 'linked',
  sourcesContent: false,
  target: 'node22',
  mainFields: ['module', 'main'],
  banner: "import{createRequire as __cr}from'node:module';const require=__cr(import.meta.url);",
  external: [] as string[],
} as const;

/**
 * Lets esbuild drop the AWS SDK schemas a function never uses. A client's schemas module describes
 * every shape of the service (about 550 KB for EC2) with trait objects keyed by module constants
 * (`{ [_xN]: _m }`); esbuild cannot prove such computed keys free of side effects in a module that
 * has imports, so it keeps every schema. Writing the constant's string literal in place of the
 * computed key changes nothing at run time and lets the unused schemas be tree-shaken.
 */
export const inlineSchemaKeys: Plugin = {
  name: 'inline-aws-sdk-schema-keys',
  setup(builder) {
    builder.onLoad(
      { filter: /[\\/]@aws-sdk[\\/]client-[^\\/]+[\\/]dist-es[\\/]schemas[\\/]schemas_\d+\.js$/ },
      async (args) => {
        const source = await readFile(args.path, 'utf8');
        const strings = new Map(
          [...source.matchAll(/^const (_\w+) = ("[^"\\\n]*");$/gm)].map((m) => [m[1] ?? '', m[2] ?? '']),
        );
        const contents = source.replace(/\[(_\w+)\]:/g, (key, name: string) => {
          const literal = strings.get(name);
          return literal === undefined ? key : `${literal}:`;
        });
        return { contents, loader: 'js' };
      },
    );
  },
};

/** Bundles `entry` (a path from the repository root) to `outfile`, returning esbuild's metafile. */
export async function bundle(root: string, entry: string, outfile: string): Promise<Metafile> {
  const result: BuildResult<{ metafile: true }> = await build({
    absWorkingDir: root,
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    minify: ESBUILD.minify,
    sourcemap: ESBUILD.sourcemap,
    sourcesContent: ESBUILD.sourcesContent,
    target: ESBUILD.target,
    mainFields: [...ESBUILD.mainFields],
    banner: { js: ESBUILD.banner },
    external: [...ESBUILD.external],
    plugins: [inlineSchemaKeys],
    metafile: true,
    logLevel: 'error',
  });
  return result.metafile;
}

/** Bundles functions/`name` into `outDir`/index.mjs, as deployed. */
export function bundleFunction(root: string, name: FunctionName, outDir: string): Promise<Metafile> {
  return bundle(root, join('functions', name, 'index.ts'), join(outDir, BUNDLE_FILE));
}
