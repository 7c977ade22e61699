/**
 * Bundles one function into a folder: `node --import tsx infra/bundle-function.ts <name> <outDir>`.
 * The stack's local bundling runs it (CDK's bundling hook is synchronous; esbuild plugins are not).
 */
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleFunction, FUNCTIONS, type FunctionName } from './bundling.js';

const [name, outDir] = process.argv.slice(2);
if (!FUNCTIONS.includes(name as FunctionName) || !outDir) {
  console.error(`usage: bundle-function.ts <${FUNCTIONS.join('|')}> <outDir>`);
  process.exit(2);
}
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
await bundleFunction(root, name as FunctionName, resolve(outDir));
