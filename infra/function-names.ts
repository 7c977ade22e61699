/**
 * The Lambda functions by name, and how each runs its bundle: what the constructs need of the
 * bundling (infra/bundling.ts) without esbuild itself, which the npm package's construct leaves out.
 */

/** How the functions run their bundle: with source maps applied to stack traces. */
export const NODE_OPTIONS = '--enable-source-maps';

/** The handler folders under functions/. */
export const FUNCTIONS = ['step', 'event-router', 'health-check', 'manual', 'sweep', 'alarm-sync'] as const;
export type FunctionName = (typeof FUNCTIONS)[number];

/** The bundle's file name in the asset; the Lambda handler is `index.handler`. */
export const BUNDLE_FILE = 'index.mjs';
