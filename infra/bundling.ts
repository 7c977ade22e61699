/**
 * How the functions are bundled: one esbuild build for the stack (through infra/bundle-function.ts),
 * bench/cold-start.ts and the bundle test, so what is measured and tested is what is deployed.
 * No CDK import.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type BuildResult, build, type Metafile, type Plugin } from 'esbuild';
import { BUNDLE_FILE, type FunctionName } from './function-names.js';
import { writeThirdPartyNotices } from './third-party-notices.js';

export { BUNDLE_FILE, FUNCTIONS, type FunctionName, NODE_OPTIONS } from './function-names.js';

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

/**
 * Leaves `semver` (29 KB minified) out of the functions that trace: the X-Ray SDK requires it only in
 * its patcher of the AWS SDK v2 (`patchers/aws_p.js`, to check the v2 SDK's version), which nothing
 * here calls (the functions use the v3 SDK, traced by `captureAWSv3Client`). Should it ever be called,
 * it fails loudly rather than tracing wrongly.
 */
export const dropXrayV2Patcher: Plugin = {
  name: 'drop-xray-sdk-v2-patcher',
  setup(builder) {
    builder.onResolve({ filter: /^semver$/ }, (args) =>
      /[\\/]aws-xray-sdk-core[\\/]dist[\\/]lib[\\/]patchers[\\/]aws_p\.js$/.test(args.importer)
        ? { path: 'semver', namespace: 'xray-v2-patcher' }
        : undefined,
    );
    builder.onLoad({ filter: /.*/, namespace: 'xray-v2-patcher' }, () => ({
      contents:
        "module.exports = { gte() { throw new Error('the AWS SDK v2 is not traced here: its X-Ray patcher was left out of the bundle'); } };",
      loader: 'js',
    }));
  },
};

const lowerFirst = (name: string): string => name.charAt(0).toLowerCase() + name.slice(1);

/**
 * Removes from the ECS client class (`client.js`, 760 generated methods, 460 KB minified) every method
 * but the given operations' (`describeInstances`, `describeInstancesWithOptions`, ...) and the class's
 * own plumbing (the constructor, `getEndpoint`). Methods are cut along the generated layout (each at
 * four spaces of indent, its doc comment before it); an operation not found fails the build.
 */
export function pruneEcsClient(source: string, operations: readonly string[]): string {
  const lines = source.split('\n');
  const classStart = lines.findIndex((l) => l.startsWith('class Client extends'));
  const classEnd = lines.findIndex((l, i) => i > classStart && l === '}');
  if (classStart < 0 || classEnd < 0) throw new Error('slim-alibaba-ecs: client.js has an unexpected layout');
  const keep = new Set([
    'constructor',
    'getEndpoint',
    ...operations.flatMap((op) => [lowerFirst(op), `${lowerFirst(op)}WithOptions`]),
  ]);
  const methodOf = (line: string) => /^ {4}(?:async )?([A-Za-z_$][\w$]*)\(/.exec(line)?.[1];
  const body: string[] = [];
  let chunk: string[] = [];
  let kept = 0;
  const flush = () => {
    const name = chunk.map(methodOf).find((n) => n !== undefined);
    if (name === undefined || keep.has(name)) {
      body.push(...chunk);
      if (name !== undefined && name !== 'constructor' && name !== 'getEndpoint') kept++;
    }
    chunk = [];
  };
  for (const line of lines.slice(classStart + 1, classEnd)) {
    // A chunk is one method and the doc comment before it.
    const docStarts = line === '    /**';
    const anotherMethod = methodOf(line) !== undefined && chunk.some((l) => methodOf(l) !== undefined);
    if (docStarts || anotherMethod) flush();
    chunk.push(line);
  }
  flush();
  if (kept !== operations.length * 2) {
    throw new Error(
      `slim-alibaba-ecs: found ${kept} of the ${operations.length * 2} methods of ${operations.join(', ')}`,
    );
  }
  return [...lines.slice(0, classStart + 1), ...body, ...lines.slice(classEnd)].join('\n');
}

/**
 * Keeps only what a function uses of the Alibaba ECS SDK (the naive bundle is 3.7 MB, its cold start
 * twice the goal):
 * - its `client.js` requires `./models/model`, a CommonJS barrel re-exporting all 3,400 request and
 *   response models (2.7 MB minified) that esbuild cannot tree-shake; that one import, from inside
 *   `@alicloud/ecs20140526`, becomes a module re-exporting only the given operations' `Request`,
 *   `Response` and `ResponseBody` models (each file holds its nested types too);
 * - the client class loses the methods of every other operation ({@link pruneEcsClient}).
 * Calling an operation that is not listed fails at once; the bundled-adapter test calls each listed one.
 */
export const slimAlibabaEcs = (operations: readonly string[]): Plugin => ({
  name: 'slim-alibaba-ecs',
  setup(builder) {
    builder.onResolve({ filter: /^\.\/models\/model$/ }, (args) => {
      if (!/[\\/]@alicloud[\\/]ecs20140526[\\/]dist$/.test(args.resolveDir)) return undefined;
      return { path: join(args.resolveDir, 'models', 'slim-model.js'), namespace: 'slim-alibaba-ecs-models' };
    });
    builder.onLoad({ filter: /.*/, namespace: 'slim-alibaba-ecs-models' }, (args) => {
      const models = operations.flatMap((op) => [`${op}Request`, `${op}Response`, `${op}ResponseBody`]);
      const requires = models.map((m) => `require(${JSON.stringify(`./${m}.js`)})`).join(',');
      return {
        contents: `Object.assign(exports, ${requires});`,
        loader: 'js',
        resolveDir: join(args.path, '..'),
      };
    });
    builder.onLoad({ filter: /[\\/]@alicloud[\\/]ecs20140526[\\/]dist[\\/]client\.js$/ }, async (args) => ({
      contents: pruneEcsClient(await readFile(args.path, 'utf8'), operations),
      loader: 'js',
    }));
  },
});

/** Bundles `entry` (a path from the repository root) to `outfile`, returning esbuild's metafile. */
export async function bundle(
  root: string,
  entry: string,
  outfile: string,
  extraPlugins: readonly Plugin[] = [],
): Promise<Metafile> {
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
    plugins: [inlineSchemaKeys, dropXrayV2Patcher, ...extraPlugins],
    metafile: true,
    logLevel: 'error',
  });
  return result.metafile;
}

/** Bundles functions/`name` into `outDir`/index.mjs, as deployed. */
export async function bundleFunction(root: string, name: FunctionName, outDir: string): Promise<Metafile> {
  const metafile = await bundle(root, join('functions', name, 'index.ts'), join(outDir, BUNDLE_FILE));
  // The bundle inlines its dependencies: their notices are deployed with it.
  writeThirdPartyNotices(root, `the ${name} Lambda function`, metafile, outDir);
  return metafile;
}
