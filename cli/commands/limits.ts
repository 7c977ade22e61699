import type { Command } from 'commander';
import { clusterLimits } from '../../lib/app/limits.js';
import { depsFromOptions } from '../context.js';
import { addConnectionOptions, type ConnectionOptions, int } from '../options.js';

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
  const command = program
    .command('limits')
    .description("show or set the cluster's in-flight fencing limit, and list the fencings in flight");
  addConnectionOptions(command)
    .option('--max-in-flight <n>', 'set the cluster-wide limit (1 to 1000)', int('--max-in-flight'))
    .addHelpText('after', HELP)
    .action(async (options: LimitsOptions) => {
      // The limit lives in Kubernetes; no provider is called.
      const deps = depsFromOptions({ ...options, region: options.region ?? 'unused' });
      const limits = await clusterLimits(deps, options.maxInFlight);
      if (options.output === 'json') {
        process.stdout.write(`${JSON.stringify(limits, null, 2)}\n`);
        return;
      }
      const lines = [
        `in-flight limit: ${limits.maxInFlight}`,
        `in flight now:   ${limits.claims.length === 0 ? 'none' : ''}`,
        ...limits.claims.map((c) => `  ${c.node} (run ${c.runId}, renewed ${c.renewedAt})`),
      ];
      process.stdout.write(`${lines.join('\n')}\n`);
    });
}
