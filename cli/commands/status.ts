import type { Command } from 'commander';
import { ExitCode } from '../exit-codes.js';
import { type ConnectionOptions, timelineOutOption } from '../options.js';
import { printResult } from '../print.js';
import { UsageError } from '../usage.js';

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
      if (options.timelineOut && !node)
        throw new UsageError('--timeline-out needs a node: fencer status NODE --timeline-out FILE');
      const { connect } = await import('../access.js');
      // The picture reads the instance and its disks too: then the cloud is needed.
      const cloud = Boolean(options.timelineOut);
      const { deps } = await connect(options, { use: { command: 'status', timeline: cloud }, cloud });
      const [{ status }, { renderStatus }] = await Promise.all([
        import('../../lib/app/status/status.js'),
        import('../render.js'),
      ]);
      const rows = await status(deps, node);
      if (node && rows.length === 0) {
        process.stderr.write(`fencer: node ${node} not found\n`);
        process.exitCode = ExitCode.Usage;
        return;
      }
      if (node && options.timelineOut) {
        const [{ reconstructTimeline }, { writeTimeline }] = await Promise.all([
          import('../../lib/app/timeline/reconstruct.js'),
          import('../timeline/write.js'),
        ]);
        const picture = await reconstructTimeline(deps, node);
        if (picture) writeTimeline(options.timelineOut, picture);
      }
      await printResult(rows, options.output, () => renderStatus(rows));
    });
}
