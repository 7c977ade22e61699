/**
 * An SQS queue as the on-failure destination of a function's asynchronous invocations, granting the
 * function exactly what sending to a KMS-encrypted queue takes (sqs:SendMessage, and kms:GenerateDataKey
 * and kms:Decrypt on the queue's key), where the library's SqsDestination grants wildcard KMS actions.
 */
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';

export class FailureQueueDestination implements lambda.IDestination {
  constructor(private readonly queue: sqs.IQueue) {}

  bind(_scope: Construct, fn: lambda.IFunction): lambda.DestinationConfig {
    fn.addToRolePolicy(
      new iam.PolicyStatement({ actions: ['sqs:SendMessage'], resources: [this.queue.queueArn] }),
    );
    if (this.queue.encryptionMasterKey) {
      fn.addToRolePolicy(
        new iam.PolicyStatement({
          actions: ['kms:GenerateDataKey', 'kms:Decrypt'],
          resources: [this.queue.encryptionMasterKey.keyArn],
        }),
      );
    }
    return { destination: this.queue.queueArn };
  }
}
