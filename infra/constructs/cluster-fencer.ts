/**
 * Everything that fences one cluster: the functions, the workflow, the EventBridge rules and the
 * schedules, least-privilege IAM, the VPC placement, and (EKS) the access entries mapping the roles
 * to Kubernetes groups.
 */
import { CfnOutput, Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as eks from 'aws-cdk-lib/aws-eks';
import type * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct, type IConstruct } from 'constructs';
import { controlPlaneLabelsEnvironment } from '../../lib/config/cluster-shape.js';
import { ClusterAccess, ENV } from '../../lib/config/lambda-settings.js';
import { SWEEP_ENV } from '../../lib/config/sweep-settings.js';
import { cephEnvironment, mgrEndpoints } from '../ceph-config.js';
import type { ClusterConfig } from '../config.js';
import {
  DELETE_VOLUME_ATTACHMENTS_GROUP,
  FENCER_GROUP,
  rbacManifests,
  SWEEP_GROUP,
  TRIGGER_GROUP,
} from '../rbac.js';
import { CephKey } from './ceph-key.js';
import { triggerRules } from './event-rules.js';
import { FencerFunction, type FencerFunctionProps } from './fencer-function.js';
import { FencingWorkflow } from './fencing-workflow.js';
import { grantClusterAccess, grantObserveInstances, grantPowerOff, grantStartRuns } from './grants.js';
import { ClusterPlacement } from './placement.js';
import { StatusCheckAlarms } from './status-check-alarms.js';

export interface ClusterFencerProps {
  readonly cluster: ClusterConfig;
  readonly key: kms.IKey;
  readonly topic: sns.ITopic;
  /** Where EventBridge puts events it could not deliver to a function. */
  readonly deadLetterQueue: sqs.IQueue;
  /** Where Lambda puts asynchronous invocations that failed after its retries. */
  readonly failedInvocations: sqs.IQueue;
}

/** The step function's timeout; the Task state allows 30 s more. */
export const STEP_TIMEOUT = Duration.seconds(60);
/**
 * A trigger's timeout: room for describing the EKS cluster and starting a run, each with all its
 * retries (test/infra/timeouts.test.ts); an event cut short is delivered again and finds its runs.
 */
export const TRIGGER_TIMEOUT = Duration.seconds(90);
/** A full sweep of 20,000 VolumeAttachments takes seconds; two minutes leaves room for slow APIs. */
export const SWEEP_TIMEOUT = Duration.minutes(2);
/**
 * The sweep keeps a compact view of every Node, VolumeAttachment and PV (bench:views: about 0.56 KB per
 * VolumeAttachment, 0.40 KB per PV, 0.84 KB per Node, one raw page alive at a time): 125 MB at the
 * Kubernetes envelope (5,000 nodes, 125,000 attachments). bench:sweep measured the whole process at
 * that size, as the function composes it: 285 MB peak RSS, 7.4 s of CPU to read and parse 288 MB of
 * JSON in 514 pages. 1,024 MB leaves over 3x that peak for findings and larger objects, and buys
 * 0.6 vCPU: about 12 s of parsing at the envelope, well within the timeout.
 */
export const SWEEP_MEMORY_MB = 1024;

/** The fencer of one cluster. */
export class ClusterFencer extends Construct {
  /** The cluster's name, as in its configuration. */
  readonly cluster: string;
  readonly step: FencerFunction;
  readonly router: FencerFunction;
  readonly healthCheck: FencerFunction;
  readonly manual: FencerFunction;
  readonly sweep: FencerFunction;
  /** The status-check alarms' keeper, when the cluster asks for them. */
  readonly statusCheckAlarms: StatusCheckAlarms | undefined;
  /** Whether the sweep remediates, and so may start fencing runs. */
  readonly sweepStartsRuns: boolean;
  readonly workflow: FencingWorkflow;
  readonly placement: ClusterPlacement | undefined;
  /**
   * The Ceph restful key the step function (which fences) and the sweep (which keeps standing fences from
   * lapsing) read, when the cluster fences RBD volumes at the storage layer.
   */
  readonly cephKey: CephKey | undefined;
  /** The aws-eks kubectl provider (a nested stack) that applies the RBAC, when kubectl access was given. */
  kubectlProvider: IConstruct | undefined;

  constructor(scope: Construct, id: string, props: ClusterFencerProps) {
    super(scope, id);
    const { cluster, key } = props;
    this.cluster = cluster.name;
    const stack = Stack.of(this);
    const eksName = cluster.eks ? (cluster.eks.clusterName ?? cluster.name) : undefined;
    const accessEnv: Record<string, string> = eksName
      ? { [ENV.access]: ClusterAccess.Eks, [ENV.eksClusterName]: eksName }
      : {
          [ENV.access]: ClusterAccess.KubeconfigSecret,
          [ENV.kubeconfigSecretArn]: cluster.kubeconfigSecretArn ?? '',
        };
    const common = { [ENV.cluster]: cluster.name, [ENV.accountId]: stack.account, ...accessEnv };
    this.placement = cluster.vpc
      ? new ClusterPlacement(this, 'Placement', cluster.vpc, cluster.ceph ? mgrEndpoints(cluster.ceph) : [])
      : undefined;
    this.cephKey = cluster.ceph ? new CephKey(this, 'CephKey', cluster.ceph) : undefined;
    const reserve = (n: number) => (cluster.reserveConcurrency ? { reservedConcurrency: n } : {});
    const make = (
      handler: FencerFunctionProps['handler'],
      description: string,
      timeout: Duration,
      more: Partial<FencerFunctionProps> & { env?: Record<string, string> } = {},
    ) => {
      const { env, ...rest } = more;
      return new FencerFunction(this, handler, {
        handler,
        description: `kube-fencer ${cluster.name}: ${description}`,
        timeout,
        key,
        environment: { ...common, ...env },
        ...(this.placement ? { placement: this.placement } : {}),
        ...rest,
      });
    };

    // The step function fences, and the sweep lengthens the entries of standing fences: only these two
    // learn the Ceph settings and may read the key. The triggers never reach Ceph.
    const cephEnv = cluster.ceph && this.cephKey ? cephEnvironment(cluster.ceph, this.cephKey.secretId) : {};
    this.step = make('step', 'one reconcile step of a fencing run', STEP_TIMEOUT, {
      env: { ...controlPlaneLabelsEnvironment(cluster.controlPlaneLabels), ...cephEnv },
    });
    this.cephKey?.grantRead(this.step.role);
    this.workflow = new FencingWorkflow(this, 'Workflow', {
      cluster: cluster.name,
      step: this.step.function,
      stepTimeout: STEP_TIMEOUT,
      topic: props.topic,
      key,
      // Under /aws/vendedlogs/: CloudWatch Logs' resource policy for Step Functions stays small.
      logGroup: new logs.LogGroup(this, 'WorkflowLogs', {
        logGroupName: `/aws/vendedlogs/states/${stack.stackName}-${cluster.name}`,
        retention: logs.RetentionDays.THREE_MONTHS,
        encryptionKey: key,
        removalPolicy: RemovalPolicy.RETAIN,
      }),
      maxSteps: cluster.maxSteps,
      timeout: Duration.minutes(cluster.timeoutMinutes),
    });
    const env = {
      [ENV.stateMachineArn]: this.workflow.stateMachine.stateMachineArn,
      [ENV.requestDefaults]: JSON.stringify(cluster.requestDefaults),
      [ENV.notReadyThresholdSeconds]: String(cluster.healthCheck.notReadyThresholdSeconds),
      [ENV.maxRunsPerEvent]: String(cluster.router.maxRunsPerEvent),
    };
    const onFailure = props.failedInvocations;
    this.router = make('event-router', 'AWS events to fencing runs', TRIGGER_TIMEOUT, {
      env,
      onFailure,
      ...reserve(cluster.router.concurrency),
    });
    // Scheduled: one at a time is all a schedule needs, and an overlap would only repeat the work.
    // It skips control-plane nodes before starting a run, so it knows the cluster's own labels too.
    this.healthCheck = make('health-check', 'fence nodes NotReady too long', TRIGGER_TIMEOUT, {
      env: { ...env, ...controlPlaneLabelsEnvironment(cluster.controlPlaneLabels) },
      onFailure,
      ...reserve(1),
    });
    this.manual = make('manual', 'manual fence request', TRIGGER_TIMEOUT, { env, onFailure });
    this.sweep = make('sweep', 'sweep zombie VolumeAttachments and topology blockers', SWEEP_TIMEOUT, {
      env: { ...env, [SWEEP_ENV.remediate]: String(cluster.sweep.remediate), ...cephEnv },
      memorySize: SWEEP_MEMORY_MB,
      onFailure,
      ...reserve(1),
    });
    this.cephKey?.grantRead(this.sweep.role);
    this.statusCheckAlarms = cluster.statusCheckAlarms
      ? new StatusCheckAlarms(this, 'StatusCheckAlarms', {
          cluster: cluster.name,
          settings: cluster.statusCheckAlarms,
          deadLetterQueue: props.deadLetterQueue,
          function: make('alarm-sync', 'keep a status-check alarm per node', TRIGGER_TIMEOUT, {
            onFailure,
            ...reserve(1),
          }),
        })
      : undefined;

    const triggers = [this.router, this.healthCheck, this.manual];
    grantPowerOff(this.step.role, cluster);
    for (const fn of triggers) grantStartRuns(fn.role, this.workflow.stateMachine);
    // Report-only sweeps read; remediating ones also start fencing runs (never power off themselves).
    grantObserveInstances(this.sweep.role);
    this.sweepStartsRuns = cluster.sweep.remediate;
    if (cluster.sweep.remediate) grantStartRuns(this.sweep.role, this.workflow.stateMachine);
    for (const fn of this.functions) grantClusterAccess(fn, cluster, eksName);
    if (eksName) this.mapToKubernetes(eksName, cluster);

    triggerRules(this, {
      cluster: cluster.name,
      router: this.router.function,
      healthCheck: this.healthCheck.function,
      everyMinutes: cluster.healthCheck.everyMinutes,
      sweep: this.sweep.function,
      sweepEveryMinutes: cluster.sweep.everyMinutes,
      deadLetterQueue: props.deadLetterQueue,
    });
    const output = (name: string, value: string, description: string) =>
      new CfnOutput(this, name, { value, description });
    output(
      'StateMachineArn',
      this.workflow.stateMachine.stateMachineArn,
      `fencing workflow of ${cluster.name}`,
    );
    output('ManualFunctionName', this.manual.function.functionName, `manual fence invoke of ${cluster.name}`);
  }

  /** Every function of this cluster. */
  get functions(): FencerFunction[] {
    return [
      this.step,
      this.router,
      this.healthCheck,
      this.manual,
      this.sweep,
      ...(this.statusCheckAlarms ? [this.statusCheckAlarms.function] : []),
    ];
  }

  /** Access entries (the roles → the Kubernetes groups of deploy/rbac.yaml), and the RBAC itself. */
  private mapToKubernetes(eksName: string, cluster: ClusterConfig): void {
    const entry = (id: string, role: iam.IRole, ...groups: string[]) =>
      new eks.CfnAccessEntry(this, id, {
        clusterName: eksName,
        principalArn: role.roleArn,
        kubernetesGroups: groups,
        type: 'STANDARD',
      });
    // Only the legacy path deletes VolumeAttachments; the out-of-service taint (>= 1.26) never does.
    const legacy = cluster.requestDefaults.strategy === 'legacy';
    entry('StepAccess', this.step.role, FENCER_GROUP, ...(legacy ? [DELETE_VOLUME_ATTACHMENTS_GROUP] : []));
    entry('RouterAccess', this.router.role, TRIGGER_GROUP);
    entry('HealthCheckAccess', this.healthCheck.role, TRIGGER_GROUP);
    entry('ManualAccess', this.manual.role, TRIGGER_GROUP);
    // Report-only, the sweep reads what it classifies; remediation deletes zombie VolumeAttachments
    // (SAFETY.md rule 5) and needs the fencer's rights.
    const sweepGroups = cluster.sweep.remediate
      ? [FENCER_GROUP, DELETE_VOLUME_ATTACHMENTS_GROUP]
      : [SWEEP_GROUP];
    entry('SweepAccess', this.sweep.role, ...sweepGroups);
    if (this.statusCheckAlarms) entry('AlarmSyncAccess', this.statusCheckAlarms.function.role, TRIGGER_GROUP);
    const { kubectlRoleArn, kubectlLayerArn } = cluster.eks ?? {};
    if (!kubectlRoleArn || !kubectlLayerArn) return;
    const imported = eks.Cluster.fromClusterAttributes(this, 'Eks', {
      clusterName: eksName,
      kubectlRoleArn,
      kubectlLayer: lambda.LayerVersion.fromLayerVersionArn(this, 'KubectlLayer', kubectlLayerArn),
    });
    new eks.KubernetesManifest(this, 'Rbac', {
      cluster: imported,
      manifest: rbacManifests(),
      overwrite: true,
    });
    this.kubectlProvider = Stack.of(this).node.children.find((c) => c.node.id.endsWith('-KubectlProvider'));
  }
}
