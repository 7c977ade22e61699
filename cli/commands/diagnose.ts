import { Argument, type Command } from 'commander';
import { EXIT_CODES_HELP, ExitCode } from '../exit-codes.js';
import type { ConnectionOptions } from '../options.js';
import { printResult } from '../print.js';

const HELP = `
Follows pod → PersistentVolumeClaim → PersistentVolume → VolumeAttachment → node → instance,
showing each state and its events, reads EC2 for the instances' power state and where the disk is
attached, then names what blocks the volume and the next safe action. It changes nothing.

It tells the two Multi-Attach errors apart:
  "Volume is already used by pod(s) X"          a pod using the volume still exists on the other
                                                node (usually Terminating on a dead node)
  "Volume is already exclusively attached ..."  no pod there any more, but the VolumeAttachment
                                                still holds the volume on the old node
and explains what RWX (NFS, CephFS) and Local PVs change.

Examples:
  fencer diagnose pod db-0 --namespace prod --cluster prod --region eu-west-1
  fencer diagnose pvc data-db-0 -n prod --region eu-west-1
  fencer diagnose node ip-10-0-1-23.ec2.internal --region eu-west-1 --output json

${EXIT_CODES_HELP}`;

export function registerDiagnose(program: Command): void {
  program
    .command('diagnose')
    .addArgument(new Argument('<kind>', 'what to start from').choices(['pod', 'pvc', 'node']))
    .argument('<name>', 'its name')
    .description(
      'explain why a volume is stuck: the chain from pod to instance, the blocker, the next safe action',
    )
    .addHelpText('after', HELP)
    .action(async (kind: 'pod' | 'pvc' | 'node', name: string, _local: unknown, self: Command) => {
      const options = self.optsWithGlobals<ConnectionOptions>();
      const { connect } = await import('../access.js');
      const { deps, namespace } = await connect(options, { use: { command: 'diagnose' }, cloud: true });
      const [{ diagnose }, { renderDiagnosis }] = await Promise.all([
        import('../../lib/app/diagnose/diagnose.js'),
        import('../render-diagnose.js'),
      ]);
      const result = await diagnose(deps, { kind, name, namespace });
      if (!result) {
        const where = kind === 'node' ? '' : ` in namespace ${namespace}`;
        process.stderr.write(`fencer: ${kind} ${name} not found${where}\n`);
        process.exitCode = ExitCode.Usage;
        return;
      }
      await printResult(result, options.output, () => renderDiagnosis(result));
      process.exitCode = ExitCode.Ok;
    });
}
