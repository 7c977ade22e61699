import { type Command, InvalidArgumentError, Option } from 'commander';

/** Parses a whole-number option (>= 0); commander names the flag and the value in the error. */
export const int =
  (_name: string) =>
  (value: string): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError('must be a whole number >= 0');
    return n;
  };
/** A whole number of at least 1 (a page size: the API server reads 0 as "no paging at all"). */
export const positiveInt = (value: string): number => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('must be a whole number >= 1');
  return n;
};
const fraction = (value: string): number => {
  const n = Number(value);
  if (!(n > 0 && n < 1)) throw new InvalidArgumentError('must be above 0 and below 1');
  return n;
};

const UNIT_SECONDS: Readonly<Record<string, number>> = { h: 3600, m: 60, s: 1 };

/**
 * Parses a duration as kubectl takes them (`90s`, `5m`, `1h30m`) or a bare number of seconds, into
 * whole seconds. `_name` is the flag, for symmetry with {@link int} (commander names it in the error).
 */
export const duration =
  (_name: string) =>
  (value: string): number => {
    const text = value.trim();
    if (/^\d+$/.test(text)) return Number(text);
    const parts = [...text.matchAll(/(\d+)([hms])/g)];
    if (parts.length === 0 || parts.map((p) => p[0]).join('') !== text) {
      throw new InvalidArgumentError('must be a duration like 90s, 5m or 1h30m (or whole seconds)');
    }
    return parts.reduce((sum, p) => sum + Number(p[1]) * (UNIT_SECONDS[p[2] ?? 's'] ?? 1), 0);
  };

/** An AWS region name: `eu-west-1`, `us-gov-west-1`, `cn-north-1`. Checked up front: a typo must not reach EC2. */
export const awsRegion = (value: string): string => {
  if (!/^[a-z]{2}(-[a-z]+)+-\d+$/.test(value)) {
    throw new InvalidArgumentError('not an AWS region name (like eu-west-1)');
  }
  return value;
};

/** An AWS account id: exactly 12 digits. */
export const awsAccountId = (value: string): string => {
  if (!/^\d{12}$/.test(value)) throw new InvalidArgumentError('an AWS account id is 12 digits');
  return value;
};

/** How results are printed. */
export type OutputFormat = 'text' | 'json' | 'yaml';

/**
 * Options every command shares, defined once on the program so they may come before or after the
 * subcommand (as with kubectl); each command reads them with `command.optsWithGlobals()`.
 */
export function addGlobalOptions(program: Command): Command {
  return program
    .option('--kubeconfig <path>', 'kubeconfig file (default: $KUBECONFIG, a list, or ~/.kube/config)')
    .option('--context <name>', 'kubeconfig context to use (default: the current context)')
    .option('-n, --namespace <namespace>', "namespace of a pod or claim (default: the context's namespace)")
    .addOption(
      new Option('--region <region>', 'AWS region of the instances').env('AWS_REGION').argParser(awsRegion),
    )
    .addOption(
      new Option(
        '--account-id <id>',
        'AWS account that must own the instances (checked when given)',
      ).argParser(awsAccountId),
    )
    .addOption(
      new Option(
        '--cluster <name>',
        "cluster name in the instances' ownership tag kubernetes.io/cluster/<name>",
      ).env('FENCER_CLUSTER'),
    )
    .addOption(
      new Option('-o, --output <format>', 'output format').choices(['text', 'json', 'yaml']).default('text'),
    )
    .option('--log-json', 'also write structured JSON logs to stderr')
    .option('--debug', 'print stack traces of errors');
}

/** A file to write the run's timeline to: lanes for node, instance, pods, VolumeAttachments, disks. */
export const timelineOutOption = (): Option =>
  new Option(
    '--timeline-out <file>',
    'write the timeline as a self-contained picture (.svg, else HTML) for the postmortem',
  );

/** The safety limits and strategy of a fence run. */
export function addFenceOptions(command: Command): Command {
  return command
    .option('--dry-run', 'report what would happen; change nothing (EC2 DryRun for the power-off)', false)
    .option(
      '--timeout <duration>',
      'give up after this long (exit 4), e.g. 15m; a slow or throttling provider is given no more of it than is left',
      duration('--timeout'),
      900,
    )
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
      '--lease-grace <duration>',
      "a Lease renewed within this long, on the API server's clock, means the node is alive (40s to 1h)",
      duration('--lease-grace'),
      40,
    )
    .option(
      '--power-off-deadline <duration>',
      'fail if the instance is not proven off within this time',
      duration('--power-off-deadline'),
      300,
    )
    .option(
      '--drain-deadline <duration>',
      'fail if pods, VolumeAttachments and disks have not cleared by then',
      duration('--drain-deadline'),
      600,
    )
    .addOption(timelineOutOption());
}

/** The global options, as every command reads them. */
export interface ConnectionOptions {
  readonly kubeconfig?: string;
  readonly context?: string;
  readonly namespace?: string;
  readonly region?: string;
  readonly accountId?: string;
  readonly cluster?: string;
  readonly output: OutputFormat;
  readonly logJson?: boolean;
  readonly debug?: boolean;
  /** Items per page of Kubernetes lists (`--chunk-size`, as kubectl's); without it, KubeCluster's defaults. */
  readonly chunkSize?: number;
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
  readonly forceDeleteToleratingPods: boolean;
  readonly leaseGrace: number;
  readonly powerOffDeadline: number;
  readonly drainDeadline: number;
  readonly timelineOut?: string;
}
