/**
 * How the functions are bundled: one set of esbuild options for the stack (NodejsFunction) and for
 * bench/cold-start.ts, so the bench measures what is deployed. Plain data, no CDK import.
 */

/** The handler folders under functions/. */
export const FUNCTIONS = ['step', 'event-router', 'health-check', 'manual', 'sweep'] as const;
export type FunctionName = (typeof FUNCTIONS)[number];

/**
 * ESM, minified, for Node.js 22; `module` before `main` so the AWS SDK's ES builds are tree-shaken;
 * a `require` for the CommonJS dependencies; nothing external: the AWS SDK is bundled at the version
 * the tests ran against, not whatever the Lambda runtime ships.
 */
export const ESBUILD = {
  minify: true,
  target: 'node22',
  mainFields: ['module', 'main'],
  banner: "import{createRequire as __cr}from'node:module';const require=__cr(import.meta.url);",
  external: [] as string[],
} as const;
