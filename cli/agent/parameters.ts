/**
 * What `fencer agent` accepts, in the fence-agents protocol's own terms (doc/FenceAgentAPI.md and
 * lib/fencing.py of ClusterLabs/fence-agents): one table that the option parser, the metadata XML and
 * the `--help` text are all written from, so the three never drift apart.
 */

/** The agent's name in its metadata, and the name of the wrapper Pacemaker and FAR find in /usr/sbin. */
export const AGENT_NAME = 'fence_kube_fencer';

/** The actions the protocol defines. `on` is answered (refused), but not advertised in the metadata. */
export const ACTIONS = [
  'off',
  'reboot',
  'on',
  'status',
  'list',
  'list-status',
  'monitor',
  'metadata',
  'validate-all',
] as const;
export type AgentAction = (typeof ACTIONS)[number];

/** The value types of the fence-agents metadata schema (`select` is not needed here). */
export type ParameterType = 'string' | 'second' | 'integer' | 'boolean';

export interface AgentParameter {
  /** Its name as a `name=value` line on stdin, and in the metadata. */
  readonly name: string;
  /** On the command line: `--long=value` (or `--long value`; a boolean alone: `--long`). */
  readonly long: string;
  /** A one-letter form, as the fence agents have it (`-o off`, `-n node-a`). */
  readonly short?: string;
  /** What the value is, in the help and the metadata: `--plug=[node]`. */
  readonly placeholder?: string;
  readonly type: ParameterType;
  /** Required by the actions that act on a node (the metadata's `required="1"`, as fence_aws has it). */
  readonly required: boolean;
  readonly default?: string;
  readonly shortdesc: string;
}

export const PARAMETERS: readonly AgentParameter[] = [
  {
    name: 'action',
    long: 'action',
    short: 'o',
    placeholder: 'action',
    type: 'string',
    required: true,
    shortdesc:
      'Fencing action: off, reboot (off; powering on again is left to the provider), status, list, list-status, monitor, metadata, validate-all',
  },
  {
    name: 'plug',
    long: 'plug',
    short: 'n',
    placeholder: 'node',
    type: 'string',
    required: true,
    shortdesc: 'Name of the Kubernetes node to act on (port is the same)',
  },
  {
    name: 'cluster',
    long: 'cluster',
    placeholder: 'name',
    type: 'string',
    required: false,
    shortdesc:
      "Cluster name in the instances' ownership tag kubernetes.io/cluster/<name> (default: $FENCER_CLUSTER; needed by off, reboot, status)",
  },
  {
    name: 'region',
    long: 'region',
    short: 'r',
    placeholder: 'region',
    type: 'string',
    required: false,
    shortdesc:
      'AWS region of the instances (default: $AWS_REGION; Alibaba Cloud ECS is set by $ALIBABA_CLOUD_REGION and its keys)',
  },
  {
    name: 'account_id',
    long: 'account-id',
    placeholder: 'id',
    type: 'string',
    required: false,
    shortdesc: 'AWS account that must own the instances (checked when given)',
  },
  {
    name: 'kubeconfig',
    long: 'kubeconfig',
    placeholder: 'path',
    type: 'string',
    required: false,
    shortdesc: 'Kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)',
  },
  {
    name: 'context',
    long: 'context',
    placeholder: 'name',
    type: 'string',
    required: false,
    shortdesc: "Kubeconfig context (default: the kubeconfig's current context)",
  },
  {
    name: 'timeout',
    long: 'timeout',
    placeholder: 'seconds',
    type: 'second',
    required: false,
    default: '900',
    shortdesc: 'Give up an off or reboot after this many seconds (a failure, exit 1)',
  },
  {
    name: 'power_timeout',
    long: 'power-timeout',
    placeholder: 'seconds',
    type: 'second',
    required: false,
    default: '300',
    shortdesc: 'Fail when the machine is not proven off this many seconds after the decision to fence',
  },
  {
    name: 'drain_timeout',
    long: 'drain-timeout',
    placeholder: 'seconds',
    type: 'second',
    required: false,
    default: '600',
    shortdesc: "Fail when the node's pods and VolumeAttachments have not cleared this long after the taint",
  },
  {
    name: 'lease_grace',
    long: 'lease-grace',
    placeholder: 'seconds',
    type: 'second',
    required: false,
    default: '40',
    shortdesc:
      "A node Lease renewed within this long, on the API server's clock, means the node lives (40 to 3600)",
  },
  {
    name: 'max_unhealthy',
    long: 'max-unhealthy',
    placeholder: 'n',
    type: 'integer',
    required: false,
    default: '3',
    shortdesc: 'Refuse to fence when more nodes than this are unhealthy',
  },
  {
    name: 'max_unhealthy_fraction',
    long: 'max-unhealthy-fraction',
    placeholder: 'fraction',
    type: 'string',
    required: false,
    default: '0.4',
    shortdesc: 'Refuse to fence when more than this fraction of the nodes is unhealthy (above 0, below 1)',
  },
  {
    name: 'delay',
    long: 'delay',
    placeholder: 'seconds',
    type: 'second',
    required: false,
    default: '0',
    shortdesc: 'Wait this many seconds before fencing starts',
  },
  {
    name: 'separator',
    long: 'separator',
    short: 'C',
    placeholder: 'char',
    type: 'string',
    required: false,
    default: ',',
    shortdesc: 'Separator of the fields of list and list-status',
  },
  {
    name: 'verbose',
    long: 'verbose',
    short: 'v',
    type: 'boolean',
    required: false,
    shortdesc: 'Write structured JSON logs, and the stack trace of an error, to stderr',
  },
];

/**
 * Other names of a parameter: `port` is the protocol's old name of `plug` (fencing.py keeps both), and
 * `option` its old name of `action` (FenceAgentAPI.md: deprecated).
 */
export const ALIASES: Readonly<Record<string, string>> = { port: 'plug', option: 'action' };

/**
 * What callers send that is not a setting of the agent: Pacemaker passes the target's cluster node name
 * (`nodename`) and id (`nodeid`) with every fencing call, and the old fenced the agent's name (`agent`).
 * Accepted and ignored, as fencing.py ignores them: the node to act on is `plug`.
 */
export const PASSED_BY_CALLERS: readonly string[] = ['nodename', 'nodeid', 'agent'];

/** `port_as_ip` → `port-as-ip`: both spellings name one parameter, on stdin and on the command line. */
export const canonicalName = (name: string): string => {
  const underscored = name.replaceAll('-', '_').toLowerCase();
  return ALIASES[underscored] ?? underscored;
};

export const parameterNamed = (name: string): AgentParameter | undefined =>
  PARAMETERS.find((p) => p.name === name);

export const parameterWithShort = (letter: string): AgentParameter | undefined =>
  PARAMETERS.find((p) => p.short === letter);

/** How the parameter is written on the command line: `-n, --plug=[node]`, or `-v, --verbose`. */
export const commandLineForm = (p: AgentParameter): string => {
  const long = p.type === 'boolean' ? `--${p.long}` : `--${p.long}=[${p.placeholder ?? 'value'}]`;
  return p.short ? `-${p.short}, ${long}` : long;
};
