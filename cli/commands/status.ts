import type { Command } from 'commander';
import { ExitCode } from '../exit-codes.js';
import { type ConnectionOptions, timelineOutOption } from '../options.js';
import { printResult } from '../print.js';

interface StatusOptions extends ConnectionOptions {
  readonly timelineOut?: string;
}

export function registerStatus(program: Command): void {
  program
    .command('status')
    .argument(
      '[node]',
      'one node; default: every node that is unhealthy, tainted out-of-service, or being fenced',
    )
    .description(
      'show fencing state: readiness, out-of-service taint and who added it, pods and VolumeAttachments',
    )
    .addOption(timelineOutOption())
    .action(async (node: string | undefined, _local: StatusOptions, self: Command) => {
      const options = self.optsWithGlobals<StatusOptions>();
      const { connect } = await import('../access.js');
      const { deps } = await connect(options, { use: { command: 'status' }, cloud: false });
      const [{ status }, { renderStatus }] = await Promise.all([
        import('../../lib/app/status.js'),
        import('../render.js'),
      ]);
      const rows = await status(deps, node);
      if (node && rows.length === 0) {
        process.stderr.write(`fencer: node ${node} not found\n`);
        process.exitCode = ExitCode.Usage;
        return;
      }
      await printResult(rows, options.output, () => renderStatus(rows));
    });
}
