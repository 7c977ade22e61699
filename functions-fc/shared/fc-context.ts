/**
 * What Function Compute 3.0 hands a Node.js handler, `(event: Buffer, context)`, and the wrapper every
 * handler of the fencer shares: the event decoded from JSON, the invocation's request id on every log
 * line, the role's credentials checked, and an error logged (with its name, which the metric counts)
 * before Function Compute sees it.
 */
import {
  ecsCredentialsFromFunctionCompute,
  type FunctionComputeCredentials,
} from '../../lib/adapters/alicloud-ecs/credentials.js';
import { decodeFcEvent } from '../../lib/config/alibaba-events.js';
import type { FcTelemetry } from '../../lib/observability/fc.js';

/** The part of Function Compute's context the handlers read. */
export interface FcContext {
  readonly requestId: string;
  /** The function role's STS credentials, renewed by Function Compute. */
  readonly credentials?: FunctionComputeCredentials;
  readonly function?: { readonly name?: string; readonly timeout?: number };
  readonly region?: string;
  readonly accountId?: string;
}

/** The role credentials of one invocation. */
export interface RoleCredentials {
  readonly accessKeyId: string;
  readonly accessKeySecret: string;
  readonly securityToken?: string;
}

/** The invocation's role credentials: required, since every call the fencer makes is signed with them. */
export const roleCredentials = (context: FcContext): RoleCredentials =>
  ecsCredentialsFromFunctionCompute(context.credentials ?? {});

/** A handler of the fencer: the decoded event, the context, and the role's credentials. */
export type FencerHandler<R> = (
  event: unknown,
  context: FcContext,
  credentials: RoleCredentials,
) => Promise<R>;

/** Wraps a handler as Function Compute calls it. */
export function fcHandler<R>(
  telemetry: FcTelemetry,
  cluster: string,
  handle: FencerHandler<R>,
): (event: unknown, context: FcContext) => Promise<R> {
  return async (event, context) => {
    telemetry.setContext({ requestId: context.requestId, functionName: context.function?.name, cluster });
    try {
      return await handle(decodeFcEvent(event), context, roleCredentials(context));
    } catch (error) {
      telemetry.log.error('invocation failed', { error });
      telemetry.metrics.count('FunctionErrors', { error: (error as Error).name ?? 'Error' });
      throw error;
    }
  };
}
