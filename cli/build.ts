/**
 * `npm run build`: bundles the CLI into dist/ (see bundle.ts), then the `kube-fencer/cdk` construct and
 * the Lambda bundles it deploys (infra/package-build.ts), and says how big each came out.
 */
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildCdkPackage } from '../infra/package-build.js';
import { bundleCli } from './bundle.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const started = performance.now();
const metafile = await bundleCli(root);
const outputs = Object.entries(metafile.outputs).filter(([file]) => file.endsWith('.js'));
const bytes = outputs.reduce((sum, [, o]) => sum + o.bytes, 0);
const seconds = ((performance.now() - started) / 1000).toFixed(1);
console.log(`fencer: built dist/ (${outputs.length} files, ${(bytes / 1e6).toFixed(1)} MB) in ${seconds} s`);
const cdkStarted = performance.now();
const cdkBytes = await buildCdkPackage(root);
const cdkSeconds = ((performance.now() - cdkStarted) / 1000).toFixed(1);
console.log(
  `kube-fencer/cdk: built dist/cdk/ (${(cdkBytes / 1e6).toFixed(2)} MB) and dist/lambda/ in ${cdkSeconds} s`,
);
