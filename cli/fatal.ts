/**
 * Every failure as one line on stderr, `fencer: <what is wrong and what to do>`, with its exit code
 * from the documented table (exit-codes.ts); the stack trace only with `--debug`. Errors are told
 * apart by name, not class: this module is loaded by every command, so it imports nothing heavy.
 */
import type * as z from 'zod';
import { describeIssues } from '../lib/config/issues.js';
import { ExitCode } from './exit-codes.js';

const RBAC_HINT =
  'the fencer needs deploy/rbac.yaml (kubectl apply -f deploy/rbac.yaml binds it to user, group and service account kube-fencer)';

/** EC2 and STS codes that mean the credentials, not the request, are wrong. */
const AWS_CREDENTIAL_CODES = new Set([
  'AuthFailure',
  'ExpiredToken',
  'ExpiredTokenException',
  'InvalidClientTokenId',
  'UnrecognizedClientException',
  'RequestExpired',
  'SignatureDoesNotMatch',
  'CredentialsProviderError',
]);
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'TimeoutError',
]);

interface Classified {
  readonly code: number;
  readonly line: string;
}

const fieldOf = (err: unknown, field: string): unknown =>
  typeof err === 'object' && err !== null ? (err as Record<string, unknown>)[field] : undefined;

const firstLine = (text: string): string => text.split('\n')[0] ?? text;

function classifyProviderApi(err: Error): Classified {
  const code = String(fieldOf(err, 'code') ?? '');
  // The adapter's own verdict first (EC2 and ECS each know their credential codes), then the known ones.
  if (fieldOf(err, 'credentials') === true || AWS_CREDENTIAL_CODES.has(code)) {
    return { code: ExitCode.Credentials, line: `${err.message} (the cloud credentials were not accepted)` };
  }
  if (NETWORK_CODES.has(code)) return { code: ExitCode.Unreachable, line: err.message };
  return { code: ExitCode.Provider, line: err.message };
}

function classifyKubernetesApi(err: Error): Classified {
  const status = fieldOf(err, 'statusCode');
  if (status === 401) return { code: ExitCode.Credentials, line: err.message };
  if (status === 403) return { code: ExitCode.Forbidden, line: `${err.message}; ${RBAC_HINT}` };
  const cause = String(fieldOf(fieldOf(err, 'cause'), 'code') ?? '');
  if (status === undefined && NETWORK_CODES.has(cause))
    return { code: ExitCode.Unreachable, line: err.message };
  return { code: ExitCode.Failed, line: err.message };
}

function classify(err: unknown): Classified {
  if (!(err instanceof Error)) return { code: ExitCode.Internal, line: `unexpected error: ${String(err)}` };
  switch (err.name) {
    case 'UsageError':
    case 'ValidationError':
    case 'ProviderIdError':
    case 'RegionMismatchError':
      return { code: ExitCode.Usage, line: err.message };
    case 'ZodError':
      // Bounded: the input may be a file with thousands of problems.
      return { code: ExitCode.Usage, line: `invalid request: ${describeIssues(err as z.ZodError)}` };
    case 'KubeconfigError':
      return { code: ExitCode.Kubeconfig, line: err.message };
    case 'CredentialsError':
      return { code: ExitCode.Credentials, line: err.message };
    case 'UnreachableError':
      return { code: ExitCode.Unreachable, line: err.message };
    case 'PermissionDeniedError':
      return { code: ExitCode.Forbidden, line: `RBAC denied: ${err.message}; ${RBAC_HINT}` };
    case 'ProviderApiError':
      return classifyProviderApi(err);
    case 'KubernetesApiError':
      return classifyKubernetesApi(err);
    case 'ConflictError':
    case 'RefusedError':
      return { code: ExitCode.Failed, line: `${err.name}: ${err.message}` };
    case 'LabBuildError':
    case 'LabStartError':
    case 'Ec2EmulatorError':
      return { code: ExitCode.Failed, line: err.message };
    default:
      return {
        code: ExitCode.Internal,
        line: `unexpected error: ${err.name}: ${firstLine(err.message)} (run again with --debug for the stack trace)`,
      };
  }
}

/** Prints an error the way an operator wants it and returns the exit code. */
export function reportFatal(err: unknown, options: { readonly debug?: boolean } = {}): number {
  const { code, line } = classify(err);
  // One line: a message that spans lines (a server's, a plugin's) is folded, not cut.
  process.stderr.write(`fencer: ${line.replace(/\s*\n\s*/g, ' ')}\n`);
  if (options.debug) {
    let current: unknown = err;
    while (current instanceof Error) {
      process.stderr.write(`${current.stack ?? current.message}\n`);
      current = current.cause;
      if (current instanceof Error) process.stderr.write('caused by: ');
    }
  }
  return code;
}
