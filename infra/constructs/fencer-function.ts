/**
 * The one construct that owns every Lambda default: runtime (Node.js 22, as the tests run), arm64,
 * esbuild bundling (infra/bundling.ts: ESM, minified, the AWS SDK bundled at the tested version), a
 * KMS-encrypted log group with retention, X-Ray tracing, and a role of its own with no managed policies.
 */
import { execFileSync } from 'node:child_process';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { AssetHashType, type Duration, RemovalPolicy } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { METRICS_NAMESPACE, SERVICE_NAME } from '../../lib/observability/index.js';
import { BUNDLE_FILE, type FunctionName, NODE_OPTIONS } from '../bundling.js';

/** The repository root: entries and the lock file are found from here. */
export const PROJECT_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The runtime the tests run on (package.json `engines`, the `node` devDependency). */
export const FENCER_RUNTIME = lambda.Runtime.NODEJS_22_X;

/**
 * The function's code: its bundle, built on this machine by infra/bundle-function.ts (no Docker).
 * The asset is hashed by its output, so an unchanged bundle is not uploaded again.
 */
export function functionCode(handler: FunctionName): lambda.Code {
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
      environment: {
        POWERTOOLS_SERVICE_NAME: SERVICE_NAME,
        POWERTOOLS_METRICS_NAMESPACE: METRICS_NAMESPACE,
        NODE_OPTIONS,
        ...props.environment,
      },
    });
  }
}
