/**
 * Everything that fences one cluster: the four functions, the workflow, the EventBridge rules and the
 * schedule, least-privilege IAM, and (EKS) the access entries mapping the roles to Kubernetes groups.
 */
import { CfnOutput, Duration, Stack } from 'aws-cdk-lib';
import * as eks from 'aws-cdk-lib/aws-eks';
import type * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct, type IConstruct } from 'constructs';
import { ClusterAccess, ENV } from '../../lib/config/lambda-settings.js';
import { SWEEP_ENV } from '../../lib/config/sweep-settings.js';
import type { ClusterConfig } from '../config.js';
import { FENCER_GROUP, rbacManifests, TRIGGER_GROUP } from '../rbac.js';
import { triggerRules } from './event-rules.js';
import { FencerFunction, type FencerFunctionProps } from './fencer-function.js';
import { FencingWorkflow } from './fencing-workflow.js';
import { grantClusterAccess, grantObserveInstances, grantPowerOff, grantStartRuns } from './grants.js';

export interface ClusterFencerProps {
  readonly cluster: ClusterConfig;
  readonly key: kms.IKey;
  readonly topic: sns.ITopic;
  /** Where EventBridge puts events it could not deliver to a function. */
  readonly deadLetterQueue: sqs.IQueue;
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

/** The fencer of one cluster. */
export class ClusterFencer extends Construct {
  readonly step: FencerFunction;
  readonly router: FencerFunction;
  readonly healthCheck: FencerFunction;
  readonly manual: FencerFunction;
  readonly sweep: FencerFunction;
  /** Whether the sweep remediates, and so may start fencing runs. */
  readonly sweepStartsRuns: boolean;
  readonly workflow: FencingWorkflow;
  /** The aws-eks kubectl provider (a nested stack) that applies the RBAC, when kubectl access was given. */
  kubectlProvider: IConstruct | undefined;

  constructor(scope: Construct, id: string, props: ClusterFencerProps) {
    super(scope, id);
    const { cluster, key } = props;
    const stack = Stack.of(this);
    const eksName = cluster.eks ? (cluster.eks.clusterName ?? cluster.name) : undefined;
    const accessEnv: Record<string, string> = eksName
      ? { [ENV.access]: ClusterAccess.Eks, [ENV.eksClusterName]: eksName }
      : {
          [ENV.access]: ClusterAccess.KubeconfigSecret,
          [ENV.kubeconfigSecretArn]: cluster.kubeconfigSecretArn ?? '',
        };
    const common = { [ENV.cluster]: cluster.name, [ENV.accountId]: stack.account, ...accessEnv };
    const make = (
      handler: FencerFunctionProps['handler'],
      description: string,
      timeout: Duration,
      env = {},
    ) =>
      new FencerFunction(this, handler, {
        handler,
        description,
        timeout,
        key,
        environment: { ...common, ...env },
      });

    this.step = make(
      'step',
      `kube-fencer ${cluster.name}: one reconcile step of a fencing run`,
      STEP_TIMEOUT,
    );
    this.workflow = new FencingWorkflow(this, 'Workflow', {
      cluster: cluster.name,
      step: this.step.function,
      stepTimeout: STEP_TIMEOUT,
      topic: props.topic,
      key,
      logGroup: new logs.LogGroup(this, 'WorkflowLogs', {
        retention: logs.RetentionDays.THREE_MONTHS,
        encryptionKey: key,
      }),
      maxSteps: cluster.maxSteps,
      timeout: Duration.minutes(cluster.timeoutMinutes),
    });
    const triggerEnv = {
      [ENV.stateMachineArn]: this.workflow.stateMachine.stateMachineArn,
      [ENV.requestDefaults]: JSON.stringify(cluster.requestDefaults),
      [ENV.notReadyThresholdSeconds]: String(cluster.healthCheck.notReadyThresholdSeconds),
    };
    this.router = make(
      'event-router',
      `kube-fencer ${cluster.name}: AWS events to fencing runs`,
      TRIGGER_TIMEOUT,
      triggerEnv,
    );
    this.healthCheck = make(
      'health-check',
      `kube-fencer ${cluster.name}: fence nodes NotReady too long`,
      TRIGGER_TIMEOUT,
      triggerEnv,
    );
    this.manual = make(
      'manual',
      `kube-fencer ${cluster.name}: manual fence request`,
      TRIGGER_TIMEOUT,
      triggerEnv,
    );

    this.sweep = make(
      'sweep',
      `kube-fencer ${cluster.name}: sweep zombie VolumeAttachments and topology blockers`,
      SWEEP_TIMEOUT,
      { ...triggerEnv, [SWEEP_ENV.remediate]: String(cluster.sweep.remediate) },
    );

    const triggers = [this.router, this.healthCheck, this.manual];
    grantPowerOff(this.step.role, cluster);
    for (const fn of triggers) grantStartRuns(fn.role, this.workflow.stateMachine);
    // Report-only sweeps read; remediating ones also start fencing runs (never power off themselves).
    grantObserveInstances(this.sweep.role);
    this.sweepStartsRuns = cluster.sweep.remediate;
    if (cluster.sweep.remediate) grantStartRuns(this.sweep.role, this.workflow.stateMachine);
    for (const fn of [this.step, ...triggers, this.sweep]) {
      grantClusterAccess(fn, eksName, cluster.kubeconfigSecretArn);
    }
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

  /** Access entries (the step's role → `kube-fencer`, the triggers' → `kube-fencer-trigger`), and the RBAC. */
  private mapToKubernetes(eksName: string, cluster: ClusterConfig): void {
    const entry = (id: string, role: iam.IRole, group: string) =>
      new eks.CfnAccessEntry(this, id, {
        clusterName: eksName,
        principalArn: role.roleArn,
        kubernetesGroups: [group],
        type: 'STANDARD',
      });
    entry('StepAccess', this.step.role, FENCER_GROUP);
    entry('RouterAccess', this.router.role, TRIGGER_GROUP);
    entry('HealthCheckAccess', this.healthCheck.role, TRIGGER_GROUP);
    entry('ManualAccess', this.manual.role, TRIGGER_GROUP);
    // Remediation deletes zombie VolumeAttachments (safety.md rule 5): it needs the fencer's rights.
    entry('SweepAccess', this.sweep.role, cluster.sweep.remediate ? FENCER_GROUP : TRIGGER_GROUP);
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
