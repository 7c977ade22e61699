import { type Command, Option } from 'commander';
import { diagnose } from '../../lib/app/diagnose/diagnose.js';
import { depsFromOptions } from '../context.js';
import { EXIT_CODES_HELP, ExitCode } from '../exit-codes.js';
import { addConnectionOptions, type ConnectionOptions } from '../options.js';
import { renderDiagnosis } from '../render-diagnose.js';

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

interface DiagnoseOptions extends ConnectionOptions {
  readonly namespace: string;
}

export function registerDiagnose(program: Command): void {
  const command = program
    .command('diagnose')
    .addArgument(program.createArgument('<kind>', 'what to start from').choices(['pod', 'pvc', 'node']))
    .argument('<name>', 'its name')
    .description(
      'explain why a volume is stuck: the chain from pod to instance, the blocker, the next safe action',
    );
  addConnectionOptions(command)
    .addOption(new Option('-n, --namespace <namespace>', 'namespace of the pod or PVC').default('default'))
    .addHelpText('after', HELP)
    .action(async (kind: 'pod' | 'pvc' | 'node', name: string, options: DiagnoseOptions) => {
      const deps = depsFromOptions(options);
      const result = await diagnose(deps, { kind, name, namespace: options.namespace });
      if (!result) {
        const where = kind === 'node' ? '' : ` in namespace ${options.namespace}`;
        process.stderr.write(`fencer: ${kind} ${name} not found${where}\n`);
        process.exitCode = ExitCode.Usage;
        return;
      }
      process.stdout.write(
        options.output === 'json' ? `${JSON.stringify(result, null, 2)}\n` : `${renderDiagnosis(result)}\n`,
      );
      process.exitCode = ExitCode.Ok;
    });
}
