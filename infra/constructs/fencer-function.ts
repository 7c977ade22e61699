/**
 * The one construct that owns every Lambda default: runtime (Node.js 22, as the tests run), arm64,
 * esbuild bundling (ESM, minified, the AWS SDK bundled at the tested version), a KMS-encrypted log group
 * with retention, X-Ray tracing, and a role of its own with no managed policies.
 */
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Duration, RemovalPolicy } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { METRICS_NAMESPACE, SERVICE_NAME } from '../../lib/observability/index.js';
import { ESBUILD, type FunctionName } from '../bundling.js';

/** The repository root: entries and the lock file are found from here. */
export const PROJECT_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The runtime the tests run on (package.json `engines`, the `node` devDependency). */
export const FENCER_RUNTIME = lambda.Runtime.NODEJS_22_X;

/** The bundling of infra/bundling.ts, as NodejsFunction takes it. */
export const BUNDLING: nodejs.BundlingOptions = {
  minify: ESBUILD.minify,
  sourceMap: false,
  target: ESBUILD.target,
  format: nodejs.OutputFormat.ESM,
  mainFields: [...ESBUILD.mainFields],
  banner: ESBUILD.banner,
  externalModules: [...ESBUILD.external],
};

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
}

/** A fencer Lambda function with the project's defaults. */
export class FencerFunction extends Construct {
  readonly function: nodejs.NodejsFunction;
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
    this.function = new nodejs.NodejsFunction(this, 'Function', {
      entry: path.join(PROJECT_ROOT, 'functions', props.handler, 'index.ts'),
      handler: 'handler',
      projectRoot: PROJECT_ROOT,
      depsLockFilePath: path.join(PROJECT_ROOT, 'package-lock.json'),
      runtime: FENCER_RUNTIME,
      architecture: lambda.Architecture.ARM_64,
      memorySize: props.memorySize ?? 512,
      timeout: props.timeout,
      description: props.description,
      role: this.role,
      logGroup: this.logGroup,
      loggingFormat: lambda.LoggingFormat.JSON,
      tracing: lambda.Tracing.ACTIVE,
      bundling: BUNDLING,
      environment: {
        POWERTOOLS_SERVICE_NAME: SERVICE_NAME,
        POWERTOOLS_METRICS_NAMESPACE: METRICS_NAMESPACE,
        ...props.environment,
      },
    });
  }
}
