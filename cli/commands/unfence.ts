import type { Command } from 'commander';
import { EXIT_CODES_HELP } from '../exit-codes.js';
import { type ConnectionOptions, duration } from '../options.js';
import { requireOption } from '../usage.js';
import { exitCodeFor, printReport, progressHandlers, stopOnPermanentError } from './report-output.js';

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
  command
    .option('--dry-run', 'report what would happen; change nothing', false)
    .option(
      '--wait <duration>',
      'how long to wait for the node to come back before refusing, e.g. 10m',
      duration('--wait'),
      600,
    )
    .addHelpText('after', HELP)
    .action(async (node: string, _local: UnfenceOptions, self: Command) => {
      const options = self.optsWithGlobals<UnfenceOptions>();
      const { parseUnfenceRequest } = await import('../../lib/config/fence-request.js');
      const request = parseUnfenceRequest({
        node,
        cluster: requireOption(options.cluster, '--cluster', 'or set FENCER_CLUSTER'),
        dryRun: options.dryRun,
        waitSeconds: options.wait,
      });
      const { connect } = await import('../access.js');
      const { deps } = await connect(options, { use: { command: 'unfence' }, cloud: true });
      const { runUnfence } = await import('../../lib/app/fence/run-loop.js');
      const progress = progressHandlers(options.output);
      const stop = stopOnPermanentError(progress);
      const report = await runUnfence(deps, request, {
        timeoutSeconds: options.wait + 60,
        ...progress,
        onRetry: stop.onRetry,
        signal: stop.signal,
      });
      const permanent = stop.error();
      if (permanent) throw permanent;
      await printReport(report, options.output);
      process.exitCode = exitCodeFor(report);
    });
}
