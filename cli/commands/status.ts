import type { Command } from 'commander';
import { status } from '../../lib/app/status.js';
import { depsFromOptions } from '../context.js';
import { ExitCode } from '../exit-codes.js';
import { addConnectionOptions, type ConnectionOptions } from '../options.js';
import { renderStatus } from '../render.js';

export function registerStatus(program: Command): void {
  const command = program
    .command('status')
    .argument(
      '[node]',
      'one node; default: every node that is unhealthy, tainted out-of-service, or being fenced',
    )
    .description(
      'show fencing state: readiness, out-of-service taint and who added it, pods and VolumeAttachments',
    );
  addConnectionOptions(command).action(async (node: string | undefined, options: ConnectionOptions) => {
    // Status reads Kubernetes only; the region is not needed.
    const deps = depsFromOptions({ ...options, region: options.region ?? 'unused' });
    const rows = await status(deps, node);
    if (node && rows.length === 0) {
      process.stderr.write(`fencer: node ${node} not found\n`);
      process.exitCode = ExitCode.Usage;
      return;
    }
    process.stdout.write(
      options.output === 'json' ? `${JSON.stringify(rows, null, 2)}\n` : `${renderStatus(rows)}\n`,
    );
  });
}
