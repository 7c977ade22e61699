#!/usr/bin/env node
/**
 * The `fencer` command (also `kubectl fencer`). Only what `--help` needs is loaded here: each
 * command declares its arguments and options up front and imports what it runs (the Kubernetes and
 * cloud clients, the use cases, the lab for `demo`) when it runs.
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { Command, type CommanderError } from 'commander';
import { registerAgent } from './commands/agent.js';
import { registerCompletion } from './commands/completion.js';
import { registerController } from './commands/controller.js';
import { registerDemo } from './commands/demo.js';
import { registerDiagnose } from './commands/diagnose.js';
import { registerFence } from './commands/fence.js';
import { registerLimits } from './commands/limits.js';
import { registerStatus } from './commands/status.js';
import { registerSweep } from './commands/sweep.js';
import { registerUnfence } from './commands/unfence.js';
import { EXIT_CODES_HELP, ExitCode } from './exit-codes.js';
import { reportFatal } from './fatal.js';
import { addGlobalOptions } from './options.js';

// Beside cli/ in the sources and beside dist/ in the build: the package's own manifest either way.
const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
  version: string;
};
// Run as `kubectl fencer` (kubectl finds the kubectl-fencer executable), the help says so.
const asPlugin = basename(process.argv[1] ?? '').startsWith('kubectl-');
const name = asPlugin ? 'kubectl fencer' : 'fencer';

/** Commander's own errors (unknown option, bad value) in the CLI's one-line form. */
const oneLine = (message: string): string =>
  message
    .replace(/^error: /, '')
    .replace(/^option '(?:-\w, )?(--[\w-]+)[^']*' argument '([^']*)' is invalid\. /, '$1 $2: ')
    .replace(/\s*\n\s*/g, ' ')
    .trim();

// `fencer ... | head` closes the pipe early: the reader's choice, not an error worth a stack trace.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error;
  process.exit(typeof process.exitCode === 'number' ? process.exitCode : 0);
});

const program = new Command()
  .name(name)
  .description(
    'kube-fencer: prove a dead Kubernetes node is powered off through the cloud API, then release its ReadWriteOnce volumes.',
  )
  .version(`${name} ${version}`, '--version', 'print the version')
  .configureHelp({ showGlobalOptions: true })
  .configureOutput({
    outputError: (message, write) => write(`fencer: ${oneLine(message)} (see ${name} --help)\n`),
  })
  .exitOverride()
  .addHelpText('after', `\n${EXIT_CODES_HELP}`);
addGlobalOptions(program);

registerFence(program);
registerController(program);
registerUnfence(program);
registerStatus(program);
registerSweep(program);
registerDiagnose(program);
registerLimits(program);
registerDemo(program);
registerAgent(program);
registerCompletion(program);

try {
  await program.parseAsync(process.argv);
} catch (err) {
  const commanderCode = (err as CommanderError).code;
  if (['commander.helpDisplayed', 'commander.version', 'commander.help'].includes(commanderCode)) {
    process.exitCode = ExitCode.Ok;
  } else if (commanderCode?.startsWith('commander.')) {
    process.exitCode = ExitCode.Usage;
  } else {
    process.exitCode = reportFatal(err, { debug: program.opts().debug === true });
  }
}
