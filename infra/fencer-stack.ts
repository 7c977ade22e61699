/**
 * The kube-fencer stack: one per account and region, fencing one or more clusters. Shared: the KMS
 * key (logs, SNS, SQS), the outcomes topic, the queues of undelivered events and failed invocations,
 * alarms and dashboard.
 */
import { ArnFormat, Duration, Stack, type StackProps } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as subscriptions from 'aws-cdk-lib/aws-sns-subscriptions';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import type { ClusterConfig } from './config.js';
import { ClusterFencer } from './constructs/cluster-fencer.js';
import { Monitoring } from './constructs/monitoring.js';
import { acknowledgeClusterFindings, acknowledgeStackFindings } from './nag.js';

export interface KubeFencerStackProps extends StackProps {
  /** The clusters to fence; each gets its own functions, workflow and rules. */
  readonly clusters: readonly ClusterConfig[];
  /**
   * An e-mail address subscribed to the outcomes topic.
   * @default no subscription
   */
  readonly alarmEmail?: string;
}

/** The fencer of every configured cluster. */
export class KubeFencerStack extends Stack {
  readonly topic: sns.Topic;
  readonly fencers: ClusterFencer[];

  constructor(scope: Construct, id: string, props: KubeFencerStackProps) {
    super(scope, id, props);
    const key = new kms.Key(this, 'Key', {
      description: 'kube-fencer: logs, outcomes topic, dead-letter queue',
      enableKeyRotation: true,
    });
    // CloudWatch Logs, alarms (publishing to the topic) and EventBridge (to the queue) use the key.
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
        principals: [new iam.ServicePrincipal(`logs.${this.region}.amazonaws.com`)],
        resources: ['*'],
        conditions: {
          ArnLike: {
            'kms:EncryptionContext:aws:logs:arn': this.formatArn({
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
    this.topic = new sns.Topic(this, 'Outcomes', {
      displayName: 'kube-fencer outcomes',
      masterKey: key,
      enforceSSL: true,
    });
    if (props.alarmEmail) this.topic.addSubscription(new subscriptions.EmailSubscription(props.alarmEmail));
    const queue = (id: string) =>
      new sqs.Queue(this, id, {
        encryption: sqs.QueueEncryption.KMS,
        encryptionMasterKey: key,
        enforceSSL: true,
        retentionPeriod: Duration.days(14),
      });
    // Events EventBridge could not deliver to a function (the function never ran).
    const deadLetterQueue = queue('UndeliveredTriggers');
    // Asynchronous invocations that failed after Lambda's retries (the function ran and failed):
    // the event, the error and the request id, kept for a human and for a redrive.
    const failedInvocations = queue('FailedInvocations');
    this.fencers = props.clusters.map(
      (cluster) =>
        new ClusterFencer(this, `Cluster-${cluster.name}`, {
          cluster,
          key,
          topic: this.topic,
          deadLetterQueue,
          failedInvocations,
        }),
    );
    new Monitoring(this, 'Monitoring', {
      topic: this.topic,
      fencers: this.fencers,
      deadLetterQueue,
      failedInvocations,
    });
    for (const fencer of this.fencers) acknowledgeClusterFindings(fencer);
    acknowledgeStackFindings(deadLetterQueue, failedInvocations);
  }
}
