import type { Command } from 'commander';
import type { ConnectionOptions } from '../options.js';
import { int } from '../options.js';
import { printResult } from '../print.js';

const HELP = `
The in-flight limit is the cluster's, not a run's: it is kept on the fencer's claims Lease
(kube-system/kube-fencer, annotation kube-fencer.io/max-in-flight; 1 when unset), so the CLI
and the serverless fencer of one cluster always count against the same cap.

Examples:
  fencer limits                      # the limit and the fencings in flight
  fencer limits --max-in-flight 2    # allow two fencings at once in this cluster`;

interface LimitsOptions extends ConnectionOptions {
  readonly maxInFlight?: number;
}

export function registerLimits(program: Command): void {
  program
    .command('limits')
    .description("show or set the cluster's in-flight fencing limit, and list the fencings in flight")
    .option('--max-in-flight <n>', 'set the cluster-wide limit (1 to 1000)', int('--max-in-flight'))
    .addHelpText('after', HELP)
    .action(async (_local: LimitsOptions, self: Command) => {
      const options = self.optsWithGlobals<LimitsOptions>();
      const { connect } = await import('../access.js');
      // The limit lives in Kubernetes; no provider is called.
      const { deps } = await connect(options, {
        use: { command: 'limits', set: options.maxInFlight !== undefined },
        cloud: false,
      });
      const { clusterLimits } = await import('../../lib/app/status/limits.js');
      const limits = await clusterLimits(deps, options.maxInFlight);
      await printResult(limits, options.output, () =>
        [
          `in-flight limit: ${limits.maxInFlight}`,
          `in flight now:   ${limits.claims.length === 0 ? 'none' : ''}`,
          ...limits.claims.map((c) => `  ${c.node} (run ${c.runId}, renewed ${c.renewedAt})`),
        ].join('\n'),
      );
    });
}
