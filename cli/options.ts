import { type Command, InvalidArgumentError, Option } from 'commander';

/** Parses a whole-number option (>= 0), naming the flag when it is not one. */
export const int =
  (name: string) =>
  (value: string): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError(`${name} must be a whole number >= 0`);
    return n;
  };
const fraction = (value: string): number => {
  const n = Number(value);
  if (!(n > 0 && n < 1)) throw new InvalidArgumentError('must be above 0 and below 1');
  return n;
};

/** Options every command shares: where the cluster and the cloud are. */
export function addConnectionOptions(command: Command): Command {
  return command
    .option('--kubeconfig <path>', 'kubeconfig file (default: $KUBECONFIG or ~/.kube/config)')
    .option('--context <name>', 'kubeconfig context to use (default: the current context)')
    .addOption(new Option('--region <region>', 'AWS region of the instances').env('AWS_REGION'))
    .option('--account-id <id>', 'AWS account that must own the instances (checked when given)')
    .addOption(
      new Option(
        '--cluster <name>',
        "cluster name in the instances' ownership tag kubernetes.io/cluster/<name>",
      ).env('FENCER_CLUSTER'),
    )
    .addOption(new Option('-o, --output <format>', 'output format').choices(['text', 'json']).default('text'))
    .option('--log-json', 'also write structured JSON logs to stderr');
}

/** The safety limits and strategy of a fence run. */
export function addFenceOptions(command: Command): Command {
  return command
    .option('--dry-run', 'report what would happen; change nothing (EC2 DryRun for the power-off)', false)
    .option('--timeout <seconds>', 'give up after this many seconds (exit 4)', int('--timeout'), 900)
    .addOption(
      new Option('--strategy <strategy>', 'how volumes are released once the instance is proven off')
        .choices(['auto', 'out-of-service', 'legacy'])
        .default('auto'),
    )
    .option(
      '--no-accelerate',
      "do not force-delete the node's terminating pods after the taint (wait for PodGC)",
    )
    .option('--allow-terminate', 'terminate an instance that cannot be stopped (one-time Spot)', false)
    .option('--skip-os-shutdown', 'power off without a guest OS shutdown (EC2 SkipOsShutdown)', false)
    .option(
      '--max-unhealthy <n>',
      'refuse when more nodes than this are unhealthy',
      int('--max-unhealthy'),
      3,
    )
    .option(
      '--max-unhealthy-fraction <f>',
      'refuse when more than this fraction of nodes is unhealthy',
      fraction,
      0.4,
    )
    .option('--allow-control-plane', 'allow fencing a control-plane node', false)
    .option(
      '--force-delete-tolerating-pods',
      'once the instance is proven off, force-delete pods that tolerate the out-of-service taint and hold volumes',
      false,
    )
    .option(
      '--lease-grace <seconds>',
      'a Lease renewed within this many seconds means the node is alive (10 to 3600)',
      int('--lease-grace'),
      40,
    )
    .option(
      '--power-off-deadline <seconds>',
      'fail if the instance is not proven off within this time',
      int('--power-off-deadline'),
      300,
    )
    .option(
      '--drain-deadline <seconds>',
      'fail if pods, VolumeAttachments and disks have not cleared by then',
      int('--drain-deadline'),
      600,
    );
}

export interface ConnectionOptions {
  readonly kubeconfig?: string;
  readonly context?: string;
  readonly region?: string;
  readonly accountId?: string;
  readonly cluster?: string;
  readonly output: 'text' | 'json';
  readonly logJson?: boolean;
}

export interface FenceOptions extends ConnectionOptions {
  readonly dryRun: boolean;
  readonly timeout: number;
  readonly strategy: 'auto' | 'out-of-service' | 'legacy';
  readonly accelerate: boolean;
  readonly allowTerminate: boolean;
  readonly skipOsShutdown: boolean;
  readonly maxUnhealthy: number;
  readonly maxUnhealthyFraction: number;
  readonly allowControlPlane: boolean;
  readonly forceDeleteTolerating: boolean;
  readonly leaseGrace: number;
  readonly powerOffDeadline: number;
  readonly drainDeadline: number;
}
