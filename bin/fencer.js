#!/usr/bin/env node
// The `fencer` command: the built CLI (npm run build → dist/). Only syntax every Node.js with ES
// modules parses, so an older one gets one line saying what is needed instead of a stack trace.
import { unsupportedNode } from './node-version.js';

const problem = unsupportedNode(process.versions.node);
if (problem) {
  process.stderr.write(`fencer: ${problem}\n`);
  process.exit(11);
}
import('../dist/fencer.js').catch((error) => {
  if (error && error.code === 'ERR_MODULE_NOT_FOUND' && String(error.message).includes('dist')) {
    process.stderr.write(
      'fencer: the CLI is not built here: run npm run build (in a checkout) or reinstall it\n',
    );
    process.exit(1);
  }
  throw error;
});
