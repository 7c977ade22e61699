/**
 * `KubeFencer`: the fencer of one or more clusters as one construct, for a CDK app of its own
 * (`import { KubeFencer } from 'kube-fencer/cdk'`). Shared by its clusters: the KMS key (logs, topic,
 * queues), the outcomes topic, the queues of undelivered events and failed invocations, the alarms and
 * the dashboard. Each cluster gets its functions, workflow, rules and IAM (`ClusterFencer`). The
 * project's own app (infra/app.ts) is this construct fed from clusters.json.
 */
import { ArnFormat, Duration, Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as subscriptions from 'aws-cdk-lib/aws-sns-subscriptions';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { parseClusters } from './config.js';
import { ClusterFencer } from './constructs/cluster-fencer.js';
import { Monitoring } from './constructs/monitoring.js';
import type { KubeFencerProps } from './kube-fencer-props.js';
import { acknowledgeClusterFindings, acknowledgeStackFindings } from './nag.js';

export type * from './kube-fencer-props.js';

/** The fencer of every cluster in `props.clusters`, in the stack's account and region. */
export class KubeFencer extends Construct {
  /** Encrypts the logs, the outcomes topic and the queues. */
  readonly key: kms.IKey;
  /** Every run's ending (fenced, refused, failed) and every alarm. */
  readonly outcomes: sns.ITopic;
  /** Events EventBridge could not deliver to a function. */
  readonly undeliveredTriggers: sqs.IQueue;
  /** Asynchronous invocations that failed after Lambda's retries: the event, the error, the request id. */
  readonly failedInvocations: sqs.IQueue;
  /** Each cluster's fencer, by cluster name. */
  readonly clusters: Readonly<Record<string, ClusterFencer>>;

  constructor(scope: Construct, id: string, props: KubeFencerProps) {
    super(scope, id);
    const clusters = parseClusters(props.clusters);
    const key = new kms.Key(this, 'Key', {
      description: 'kube-fencer: logs, outcomes topic, dead-letter queue',
      enableKeyRotation: true,
    });
    allowServicesToUse(key);
    this.key = key;
    const topic = new sns.Topic(this, 'Outcomes', {
      displayName: 'kube-fencer outcomes',
      masterKey: key,
      enforceSSL: true,
    });
    if (props.alarmEmail) topic.addSubscription(new subscriptions.EmailSubscription(props.alarmEmail));
    this.outcomes = topic;
    const queue = (queueId: string) =>
      new sqs.Queue(this, queueId, {
        encryption: sqs.QueueEncryption.KMS,
        encryptionMasterKey: key,
        enforceSSL: true,
        retentionPeriod: Duration.days(14),
      });
    const deadLetterQueue = queue('UndeliveredTriggers');
    const failedInvocations = queue('FailedInvocations');
    this.undeliveredTriggers = deadLetterQueue;
    this.failedInvocations = failedInvocations;
    const fencers = clusters.map(
      (cluster) =>
        new ClusterFencer(this, `Cluster-${cluster.name}`, {
          cluster,
          key,
          topic,
          deadLetterQueue,
          failedInvocations,
        }),
    );
    this.clusters = Object.fromEntries(fencers.map((f) => [f.cluster, f]));
    new Monitoring(this, 'Monitoring', { topic, fencers, deadLetterQueue, failedInvocations });
    for (const fencer of fencers) acknowledgeClusterFindings(fencer);
    acknowledgeStackFindings(deadLetterQueue, failedInvocations);
  }

  /**
   * Lets `grantee` ask for a fence by hand (the manual function: the same request as `fencer fence`,
   * through the cluster's workflow and every safety rule).
   */
  grantManualInvoke(grantee: iam.IGrantable, cluster: string): iam.Grant {
    // The function itself, not its versions and aliases (`:*`, which cdk-nag flags): it has none.
    return iam.Grant.addToPrincipal({
      grantee,
      actions: ['lambda:InvokeFunction'],
      resourceArns: [this.fencerOf(cluster).manual.function.functionArn],
    });
  }

  /** Lets `grantee` start, list and read the runs of `cluster`'s workflow (the RUNBOOK's commands). */
  grantRuns(grantee: iam.IGrantable, cluster: string): iam.Grant {
    const machine = this.fencerOf(cluster).workflow.stateMachine;
    const started = machine.grantStartExecution(grantee);
    machine.grantRead(grantee);
    return started;
  }

  /** Lets `grantee` subscribe to the outcomes topic (an SQS queue, a chat bridge, a pager). */
  grantSubscribeOutcomes(grantee: iam.IGrantable): iam.Grant {
    return this.outcomes.grantSubscribe(grantee);
  }

  private fencerOf(cluster: string): ClusterFencer {
    const fencer = this.clusters[cluster];
    if (!fencer) {
      throw new Error(
        `kube-fencer fences no cluster named ${cluster} (it fences ${Object.keys(this.clusters).join(', ')})`,
      );
    }
    return fencer;
  }
}

/** CloudWatch Logs (its log groups), alarms (publishing to the topic) and EventBridge (to the queue). */
function allowServicesToUse(key: kms.Key): void {
  const stack = Stack.of(key);
  key.addToResourcePolicy(
    new iam.PolicyStatement({
      actions: [
        'kms:Encrypt',
        'kms:Decrypt',
        'kms:ReEncryptFrom',
        'kms:ReEncryptTo',
        'kms:GenerateDataKey',
        'kms:GenerateDataKeyWithoutPlaintext',
        'kms:DescribeKey',
      ],
      principals: [new iam.ServicePrincipal(`logs.${stack.region}.amazonaws.com`)],
      resources: ['*'],
      conditions: {
        ArnLike: {
          'kms:EncryptionContext:aws:logs:arn': stack.formatArn({
            service: 'logs',
            resource: 'log-group',
            resourceName: '*',
            arnFormat: ArnFormat.COLON_RESOURCE_NAME,
          }),
        },
      },
    }),
  );
  for (const service of ['cloudwatch.amazonaws.com', 'events.amazonaws.com']) {
    key.grant(new iam.ServicePrincipal(service), 'kms:GenerateDataKey', 'kms:Decrypt');
  }
}
