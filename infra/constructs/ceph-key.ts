/**
 * The Ceph restful key of one cluster, as the step function reads it: an existing Secrets Manager secret
 * (by complete ARN, or by name), or one the stack creates with a placeholder for the operator to fill.
 * Only the step function may read it (grantRead: GetSecretValue and DescribeSecret on that one secret),
 * and decrypt it with a customer-managed key through Secrets Manager only.
 */
import { CfnOutput, RemovalPolicy, SecretValue, Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as secrets from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { CEPH_KEY_PLACEHOLDER } from '../../lib/adapters/ceph-rbd/key-secret.js';
import type { CephConfig } from '../ceph-config.js';

/** Where the cluster's Ceph restful key is kept. */
export class CephKey extends Construct {
  readonly secret: secrets.ISecret;
  /** What the function passes to GetSecretValue: the ARN, or the name an existing secret was given by. */
  readonly secretId: string;
  /** Whether the stack made the secret (and so the operator must fill it). */
  readonly created: boolean;

  constructor(
    scope: Construct,
    id: string,
    private readonly ceph: CephConfig,
  ) {
    super(scope, id);
    const where = ceph.keySecret;
    this.created = 'create' in where;
    if ('arn' in where) {
      this.secret = secrets.Secret.fromSecretCompleteArn(this, 'Secret', where.arn);
      this.secretId = where.arn;
    } else if ('name' in where) {
      this.secret = secrets.Secret.fromSecretNameV2(this, 'Secret', where.name);
      this.secretId = where.name;
    } else {
      // A placeholder, not a key: the function recognises it and says what to do (docs/deploy-aws.md).
      this.secret = new secrets.Secret(this, 'Secret', {
        description: `kube-fencer: the Ceph restful key "${ceph.keyName}" (ceph restful create-key ${ceph.keyName})`,
        secretStringValue: SecretValue.unsafePlainText(CEPH_KEY_PLACEHOLDER),
        removalPolicy: RemovalPolicy.RETAIN,
      });
      this.secretId = this.secret.secretArn;
      new CfnOutput(this, 'SecretArn', {
        value: this.secret.secretArn,
        description: `Put the Ceph restful key in this secret: aws secretsmanager put-secret-value --secret-id <this> --secret-string "$(ceph restful list-keys | jq -r '."${ceph.keyName}"')"`,
      });
    }
  }

  /** Read access to this one secret, and kms:Decrypt (through Secrets Manager) on its customer-managed key. */
  grantRead(role: iam.IRole): void {
    this.secret.grantRead(role);
    const keyArn = this.ceph.keySecretKmsKeyArn;
    if (!keyArn) return;
    // Explicit: CDK's grant on an imported key adds nothing when it cannot tell the accounts apart.
    role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        sid: 'DecryptCephKeySecret',
        actions: ['kms:Decrypt'],
        resources: [keyArn],
        conditions: {
          StringEquals: { 'kms:ViaService': `secretsmanager.${Stack.of(this).region}.amazonaws.com` },
        },
      }),
    );
  }
}
