/**
 * The one schema for a fence or un-fence request, shared by the CLI, the manual-invoke Lambda and the
 * event router: unknown keys are rejected, numbers are bounded, defaults come from the domain.
 */
import * as z from 'zod';
import {
  DEFAULT_LIMITS,
  DEFAULT_UNFENCE_WAIT_SECONDS,
  type FenceRequest,
  type UnfenceRequest,
} from '../domain/request.js';

/** A Kubernetes node name (RFC 1123 subdomain). */
export const nodeName = z
  .string()
  .min(1)
  .max(253)
  .regex(
    /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/,
    'not a valid Kubernetes node name',
  );

/** A cluster name as used in the `kubernetes.io/cluster/<name>` tag. */
export const clusterName = z
  .string()
  .min(1)
  .max(100)
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'not a valid cluster name');

const seconds = (max: number) => z.number().int().min(0).max(max);

export const fenceLimitsSchema = z
  .object({
    maxUnhealthyNodes: z.number().int().min(1).max(10_000).default(DEFAULT_LIMITS.maxUnhealthyNodes),
    maxUnhealthyFraction: z.number().min(0).max(1).default(DEFAULT_LIMITS.maxUnhealthyFraction),
    maxInFlight: z.number().int().min(1).max(1000).default(DEFAULT_LIMITS.maxInFlight),
    allowControlPlane: z.boolean().default(DEFAULT_LIMITS.allowControlPlane),
    leaseGraceSeconds: seconds(3600).default(DEFAULT_LIMITS.leaseGraceSeconds),
    powerOffDeadlineSeconds: seconds(3600).default(DEFAULT_LIMITS.powerOffDeadlineSeconds),
    drainDeadlineSeconds: seconds(7200).default(DEFAULT_LIMITS.drainDeadlineSeconds),
  })
  .strict();

export const fenceRequestSchema = z
  .object({
    node: nodeName,
    cluster: clusterName,
    dryRun: z.boolean().default(false),
    strategy: z.enum(['auto', 'out-of-service', 'legacy']).default('auto'),
    accelerate: z.boolean().default(true),
    allowTerminate: z.boolean().default(false),
    skipOsShutdown: z.boolean().default(false),
    limits: fenceLimitsSchema.default(() => fenceLimitsSchema.parse({})),
  })
  .strict();

export const unfenceRequestSchema = z
  .object({
    node: nodeName,
    cluster: clusterName,
    dryRun: z.boolean().default(false),
    waitSeconds: seconds(86_400).default(DEFAULT_UNFENCE_WAIT_SECONDS),
  })
  .strict();

/** Parses a fence request; throws a ZodError naming every problem. */
export const parseFenceRequest = (input: unknown): FenceRequest => fenceRequestSchema.parse(input);
export const parseUnfenceRequest = (input: unknown): UnfenceRequest => unfenceRequestSchema.parse(input);
