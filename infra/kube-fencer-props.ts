/**
 * The props of the `KubeFencer` construct: what a cluster's entry in clusters.json holds, as readonly
 * TypeScript with its defaults. The construct validates them with the very schema the JSON file goes
 * through (infra/config.ts), so a value the functions would refuse fails the synth, naming the field.
 * Ids and ARNs may be tokens (another construct's attribute): they are checked at deploy time instead.
 */

/** The event router's bounds. */
export interface RouterProps {
  /** Runs one event may start; the rest are refused together (`TooManyNodesInEvent`). @default 10 */
  readonly maxRunsPerEvent?: number;
  /** Router invocations at once. @default 2 */
  readonly concurrency?: number;
}

/** The scheduled health check. */
export interface HealthCheckProps {
  /** @default 1 */
  readonly everyMinutes?: number;
  /** How long a node must be NotReady before the health check starts a run. @default 180 */
  readonly notReadyThresholdSeconds?: number;
}

/** The scheduled sweep of zombie VolumeAttachments (and, with Ceph, the upkeep of standing fences). */
export interface SweepProps {
  /** @default 15 */
  readonly everyMinutes?: number;
  /** Delete zombie VolumeAttachments and fence nodes NotReady too long. @default false (report only) */
  readonly remediate?: boolean;
}

/** An EKS cluster, reached with IAM (access entries map the functions' roles to Kubernetes groups). */
export interface EksAccessProps {
  /** @default the cluster's `name` */
  readonly clusterName?: string;
  /** With `kubectlLayerArn`: the stack applies deploy/rbac.yaml itself through the kubectl provider. @default RBAC applied by hand */
  readonly kubectlRoleArn?: string;
  /** @default RBAC applied by hand */
  readonly kubectlLayerArn?: string;
}

/** Where the functions run in a VPC: required for a private API server endpoint. */
export interface VpcPlacementProps {
  readonly vpcId: string;
  /** One to 16 subnets with a route to the AWS APIs the functions call. */
  readonly subnetIds: readonly string[];
  /** @default a security group that allows HTTPS out (and the API server's and Ceph mgrs' ports) */
  readonly securityGroupIds?: readonly string[];
  /** The API server's port, for the created security group's egress. @default 443 */
  readonly apiServerPort?: number;
}

/** Opt-in: one EC2 status-check alarm per node's instance, kept in step with the nodes. */
export interface StatusCheckAlarmsProps {
  /** @default 5 */
  readonly everyMinutes?: number;
  /** Minutes StatusCheckFailed_System must fail before the alarm fires. @default 2 */
  readonly evaluationMinutes?: number;
}

/** Where the Ceph restful key is kept: an existing secret by complete ARN or name, or one created. */
export type CephKeySecretProps =
  | { readonly arn: string }
  | { readonly name: string }
  | { readonly create: true };

/** Opt-in: fence the cluster's Ceph RBD volumes at the storage layer (docs/ceph.md). */
export interface CephProps {
  /** Every mgr's `restful` URL, the usual active one first; https only. */
  readonly mgrUrls: readonly string[];
  /** The restful key's name (`ceph restful create-key <name>`). */
  readonly keyName: string;
  readonly keySecret: CephKeySecretProps;
  /** @default the AWS-managed key of Secrets Manager */
  readonly keySecretKmsKeyArn?: string;
  /** The mgr's certificate, or the CA that signs it, PEM. */
  readonly caPem: string;
  /** @default 'ceph-restful' */
  readonly serverName?: string;
  /** @default no fingerprint pin */
  readonly fingerprintSha256?: string;
  /** @default 604800 (a week) */
  readonly blocklistExpireSeconds?: number;
  /** Per node name, its ranges on a separate storage network. @default none */
  readonly extraRanges?: Readonly<Record<string, readonly string[]>>;
  /** The ceph-csi clusterIDs that name this Ceph cluster. @default every image of the RBD drivers */
  readonly clusterIds?: readonly string[];
}

/** One fenced cluster. Give exactly one of `eks` and `kubeconfigSecretArn`. */
export interface KubeFencerClusterProps {
  /** The cluster's name, as in its instances' `kubernetes.io/cluster/<name>` tag. A literal, not a token. */
  readonly name: string;
  /** @default not EKS */
  readonly eks?: EksAccessProps;
  /** Any other cluster: a Secrets Manager secret (complete ARN) holding a kubeconfig. @default EKS */
  readonly kubeconfigSecretArn?: string;
  /** The customer-managed key of that secret. @default the AWS-managed key */
  readonly kubeconfigSecretKmsKeyArn?: string;
  /** @default not in a VPC */
  readonly vpc?: VpcPlacementProps;
  /** The fence request every trigger sends, minus node and cluster (docs/cli.md). @default the CLI's defaults */
  readonly requestDefaults?: Readonly<Record<string, unknown>>;
  /** Terminate an instance that cannot be stopped (one-time Spot); grants the call. @default false */
  readonly allowTerminate?: boolean;
  /** @default `{ maxRunsPerEvent: 10, concurrency: 2 }` */
  readonly router?: RouterProps;
  /** @default `{ everyMinutes: 1, notReadyThresholdSeconds: 180 }` */
  readonly healthCheck?: HealthCheckProps;
  /** @default `{ everyMinutes: 15, remediate: false }` */
  readonly sweep?: SweepProps;
  /** Label keys that mark control-plane nodes besides the common role labels. @default none */
  readonly controlPlaneLabels?: readonly string[];
  /** Steps one run may take. @default 360 */
  readonly maxSteps?: number;
  /** The workflow's timeout. @default 45 */
  readonly timeoutMinutes?: number;
  /** Reserve the router's, health check's and sweep's concurrency (false at Lambda's starting quota). @default true */
  readonly reserveConcurrency?: boolean;
  /** @default no status-check alarms */
  readonly statusCheckAlarms?: StatusCheckAlarmsProps;
  /** @default no storage fencing (an RBD image waits for its machine's power-off and its old watch) */
  readonly ceph?: CephProps;
}

/** The fencer of one or more clusters in one account and region. */
export interface KubeFencerProps {
  /** The clusters to fence; each gets its own functions, workflow, rules and alarms. */
  readonly clusters: readonly KubeFencerClusterProps[];
  /** An e-mail address subscribed to the outcomes topic. @default no subscription */
  readonly alarmEmail?: string;
}
