#!/usr/bin/env node
import { Command } from 'commander';
import { registerDemo } from './commands/demo.js';
import { reportFatal } from './fatal.js';

const program = new Command()
  .name('fencer')
  .description(
    'kube-fencer: prove a dead Kubernetes node is powered off through the cloud API, then release its ReadWriteOnce volumes.',
  )
  .showHelpAfterError();

registerDemo(program);

try {
  await program.parseAsync(process.argv);
} catch (err) {
  process.exitCode = reportFatal(err);
}
