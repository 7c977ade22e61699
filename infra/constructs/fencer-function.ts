/**
 * The one construct that owns every Lambda default: runtime (Node.js 22, as the tests run), arm64,
 * esbuild bundling (infra/bundling.ts: ESM, minified, the AWS SDK bundled at the tested version), a
 * KMS-encrypted log group with retention, X-Ray tracing, and a role of its own with no managed policies.
 */
import { execFileSync } from 'node:child_process';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { AssetHashType, Duration, RemovalPolicy, Stack, Token } from 'aws-cdk-lib';
import type * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { METRICS_NAMESPACE, SERVICE_NAME } from '../../lib/observability/index.js';
import { BUNDLE_FILE, type FunctionName, NODE_OPTIONS } from '../function-names.js';
import { FailureQueueDestination } from './failure-queue.js';

/** The repository root: entries and the lock file are found from here. */
export const PROJECT_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The runtime the tests run on (package.json `engines`, the `node` devDependency). */
export const FENCER_RUNTIME = lambda.Runtime.NODEJS_22_X;

/**
 * Set (to true) in the npm package's construct bundle (infra/package-build.ts): the bundles were built
 * ahead into dist/lambda/, since an app that imports the construct has no sources to bundle.
 */
const PREBUILT =
  (globalThis as { KUBE_FENCER_PREBUILT_LAMBDAS?: boolean }).KUBE_FENCER_PREBUILT_LAMBDAS === true;

/**
 * The function's code: its bundle, built on this machine by infra/bundle-function.ts (no Docker), or
 * the one the npm package ships. The asset is hashed by its output, so an unchanged bundle is not
 * uploaded again.
 */
export function functionCode(handler: FunctionName): lambda.Code {
  if (PREBUILT) return lambda.Code.fromAsset(path.join(PROJECT_ROOT, 'dist', 'lambda', handler));
  return lambda.Code.fromAsset(path.join(PROJECT_ROOT, 'functions', handler), {
    assetHashType: AssetHashType.OUTPUT,
    bundling: {
      image: FENCER_RUNTIME.bundlingImage,
      local: {
        tryBundle(outputDir) {
          const script = path.join(PROJECT_ROOT, 'infra', 'bundle-function.ts');
          execFileSync(process.execPath, ['--import', 'tsx', script, handler, outputDir], {
            cwd: PROJECT_ROOT,
            stdio: 'inherit',
          });
          return true;
        },
      },
    },
  });
}

export interface FencerFunctionProps {
  /** The handler folder under functions/, e.g. `step`. */
  readonly handler: FunctionName;
  readonly description: string;
  readonly timeout: Duration;
  readonly environment: Readonly<Record<string, string>>;
  /** Encrypts the log group. */
  readonly key: kms.IKey;
  /** @default 512 (more memory is more CPU: a shorter cold start) */
  readonly memorySize?: number;
  /** @default logs.RetentionDays.THREE_MONTHS */
  readonly logRetention?: logs.RetentionDays;
  /** Where the function runs in a VPC (a private API server endpoint). @default not in a VPC */
  readonly placement?: FunctionPlacement;
  /** Executions at once, reserved. @default unreserved */
  readonly reservedConcurrency?: number;
  /**
   * For a function invoked asynchronously (EventBridge, a schedule, `--invocation-type Event`): where an
   * invocation goes once Lambda's retries are spent, so that no trigger is lost. @default none
   */
  readonly onFailure?: sqs.IQueue;
}

/** A function's place in a VPC. */
export interface FunctionPlacement {
  readonly vpc: ec2.IVpc;
  readonly subnets: readonly ec2.ISubnet[];
  readonly securityGroups: readonly ec2.ISecurityGroup[];
}

/** Lambda's own retries of an asynchronous invocation before it goes to the failure destination. */
export const ASYNC_RETRY_ATTEMPTS = 2;
/** How long Lambda keeps trying an asynchronous invocation (throttled by reserved concurrency, say). */
export const ASYNC_MAX_EVENT_AGE = Duration.hours(6);

/** Lambda's limit on a function's environment: every name and value, together. */
export const LAMBDA_ENVIRONMENT_LIMIT_BYTES = 4096;
/** What a value known only at deploy time (an ARN) is counted as: room for a long ARN. */
const UNRESOLVED_VALUE_BYTES = 256;

/**
 * Throws when the environment cannot fit Lambda's 4 KB: a clear error at synth, instead of a failed
 * deploy (a Ceph mgr's certificate chain, or many storage ranges, is what makes it grow).
 */
export function checkEnvironmentSize(handler: string, environment: Readonly<Record<string, string>>): void {
  const bytes = Object.entries(environment).reduce(
    (sum, [name, value]) =>
      sum +
      Buffer.byteLength(name) +
      (Token.isUnresolved(value) ? UNRESOLVED_VALUE_BYTES : Buffer.byteLength(value)),
    0,
  );
  if (bytes > LAMBDA_ENVIRONMENT_LIMIT_BYTES) {
    throw new Error(
      `the ${handler} function's environment would be about ${bytes} bytes, over Lambda's ${LAMBDA_ENVIRONMENT_LIMIT_BYTES}: shorten what grows it (ceph.caPem: the one certificate that signs the mgr's, not a whole bundle; ceph.extraRanges)`,
    );
  }
}

/** A fencer Lambda function with the project's defaults. */
export class FencerFunction extends Construct {
  readonly function: lambda.Function;
  readonly role: iam.Role;
  readonly logGroup: logs.LogGroup;

  constructor(scope: Construct, id: string, props: FencerFunctionProps) {
    super(scope, id);
    this.logGroup = new logs.LogGroup(this, 'Logs', {
      retention: props.logRetention ?? logs.RetentionDays.THREE_MONTHS,
      encryptionKey: props.key,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    this.role = new iam.Role(this, 'Role', {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: `kube-fencer ${props.handler}`,
    });
    this.logGroup.grantWrite(this.role);
    const environment = {
      POWERTOOLS_SERVICE_NAME: SERVICE_NAME,
      POWERTOOLS_METRICS_NAMESPACE: METRICS_NAMESPACE,
      NODE_OPTIONS,
      ...props.environment,
    };
    checkEnvironmentSize(props.handler, environment);
    this.function = new lambda.Function(this, 'Function', {
      code: functionCode(props.handler),
      handler: `${path.parse(BUNDLE_FILE).name}.handler`,
      runtime: FENCER_RUNTIME,
      architecture: lambda.Architecture.ARM_64,
      memorySize: props.memorySize ?? 512,
      timeout: props.timeout,
      description: props.description,
      role: this.role,
      logGroup: this.logGroup,
      loggingFormat: lambda.LoggingFormat.JSON,
      tracing: lambda.Tracing.ACTIVE,
      environment,
      ...(props.reservedConcurrency ? { reservedConcurrentExecutions: props.reservedConcurrency } : {}),
      ...(props.placement
        ? {
            vpc: props.placement.vpc,
            vpcSubnets: { subnets: [...props.placement.subnets] },
            securityGroups: [...props.placement.securityGroups],
          }
        : {}),
    });
    if (props.placement) this.grantNetworkInterfaces(props.placement);
    if (props.onFailure) {
      this.function.configureAsyncInvoke({
        onFailure: new FailureQueueDestination(props.onFailure),
        retryAttempts: ASYNC_RETRY_ATTEMPTS,
        maxEventAge: ASYNC_MAX_EVENT_AGE,
      });
    }
  }

  /**
   * What Lambda does with the function's role to place it in the VPC (create, describe and delete its
   * network interfaces), instead of the managed AWSLambdaVPCAccessExecutionRole: the creation only in
   * the configured subnets and security groups.
   */
  private grantNetworkInterfaces(placement: FunctionPlacement): void {
    const stack = Stack.of(this);
    const arn = (resource: string, name: string) =>
      stack.formatArn({ service: 'ec2', resource, resourceName: name });
    const interfaces = arn('network-interface', '*');
    this.role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        sid: 'CreateInterfacesInPlacement',
        actions: ['ec2:CreateNetworkInterface'],
        resources: [
          interfaces,
          ...placement.subnets.map((s) => arn('subnet', s.subnetId)),
          ...placement.securityGroups.map((g) => arn('security-group', g.securityGroupId)),
        ],
      }),
    );
    this.role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        sid: 'ManageOwnInterfaces',
        actions: [
          'ec2:DeleteNetworkInterface',
          'ec2:AssignPrivateIpAddresses',
          'ec2:UnassignPrivateIpAddresses',
        ],
        resources: [interfaces],
      }),
    );
    this.role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        sid: 'DescribeInterfaces',
        actions: ['ec2:DescribeNetworkInterfaces', 'ec2:DescribeSubnets'],
        resources: ['*'],
      }),
    );
  }
}
