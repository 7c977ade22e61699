#!/usr/bin/env node
import { Command } from 'commander';
import { registerDemo } from './commands/demo.js';
import { registerDiagnose } from './commands/diagnose.js';
import { registerFence } from './commands/fence.js';
import { registerLimits } from './commands/limits.js';
import { registerStatus } from './commands/status.js';
import { registerSweep } from './commands/sweep.js';
import { registerUnfence } from './commands/unfence.js';
import { EXIT_CODES_HELP, ExitCode } from './exit-codes.js';
import { reportFatal } from './fatal.js';

const program = new Command()
  .name('fencer')
  .description(
    'kube-fencer: prove a dead Kubernetes node is powered off through the cloud API, then release its ReadWriteOnce volumes.',
  )
  .showHelpAfterError('(run with --help for usage)')
  .exitOverride()
  .addHelpText('after', `\n${EXIT_CODES_HELP}`);

registerFence(program);
registerUnfence(program);
registerStatus(program);
registerSweep(program);
registerDiagnose(program);
registerLimits(program);
registerDemo(program);

try {
  await program.parseAsync(process.argv);
} catch (err) {
  const code = (err as { code?: string; exitCode?: number }).code;
  if (code === 'commander.helpDisplayed' || code === 'commander.version' || code === 'commander.help') {
    process.exitCode = ExitCode.Ok;
  } else if (code?.startsWith('commander.')) {
    process.exitCode = ExitCode.Usage;
  } else {
    process.exitCode = reportFatal(err);
  }
}
