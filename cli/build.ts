/** `npm run build`: bundles the CLI into dist/ (see bundle.ts) and says how big it came out. */
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleCli } from './bundle.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const started = performance.now();
const metafile = await bundleCli(root);
const outputs = Object.entries(metafile.outputs).filter(([file]) => file.endsWith('.js'));
const bytes = outputs.reduce((sum, [, o]) => sum + o.bytes, 0);
const seconds = ((performance.now() - started) / 1000).toFixed(1);
console.log(`fencer: built dist/ (${outputs.length} files, ${(bytes / 1e6).toFixed(1)} MB) in ${seconds} s`);
