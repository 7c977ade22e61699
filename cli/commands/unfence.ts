import type { Command } from 'commander';
import { runUnfence } from '../../lib/app/run-loop.js';
import { parseUnfenceRequest } from '../../lib/config/fence-request.js';
import { depsFromOptions, requireOption } from '../context.js';
import { EXIT_CODES_HELP } from '../exit-codes.js';
import { addConnectionOptions, type ConnectionOptions } from '../options.js';
import { exitCodeFor, printReport, progressHandlers } from './report-output.js';

const HELP = `
Removes the out-of-service taint, but only a taint this fencer added (recorded in the
annotation kube-fencer.io/fence-record), and only once the node is Ready again AND its
instance was started after the fence (EC2 LaunchTime later than the fence). Without a power
cycle the taint stays and the command says why: a node that was only partitioned may still
hold stale mounts.

Examples:
  fencer unfence ip-10-0-1-23.ec2.internal --cluster prod --region eu-west-1
  fencer unfence node-a --cluster prod --wait 0      # check once, do not wait

${EXIT_CODES_HELP}`;

interface UnfenceOptions extends ConnectionOptions {
  readonly dryRun: boolean;
  readonly wait: number;
}

export function registerUnfence(program: Command): void {
  const command = program
    .command('unfence')
    .argument('<node>', 'name of the node to un-fence')
    .description("remove the fencer's own out-of-service taint once the node is back after a power cycle");
  addConnectionOptions(command)
    .option('--dry-run', 'report what would happen; change nothing', false)
    .option(
      '--wait <seconds>',
      'how long to wait for the node to come back before refusing',
      (v) => Number(v),
      600,
    )
    .addHelpText('after', HELP)
    .action(async (node: string, options: UnfenceOptions) => {
      const deps = depsFromOptions(options);
      const request = parseUnfenceRequest({
        node,
        cluster: requireOption(options.cluster, '--cluster', 'or set FENCER_CLUSTER'),
        dryRun: options.dryRun,
        waitSeconds: options.wait,
      });
      const report = await runUnfence(deps, request, {
        timeoutSeconds: options.wait + 60,
        ...progressHandlers(options.output),
      });
      printReport(report, options.output);
      process.exitCode = exitCodeFor(report);
    });
}
