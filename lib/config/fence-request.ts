/**
 * The one schema for a fence or un-fence request, shared by the CLI, the manual-invoke Lambda and the
 * event router: unknown keys are rejected, numbers are bounded, defaults come from the domain.
 */
import * as z from 'zod';
import {
  DEFAULT_LIMITS,
  DEFAULT_UNFENCE_WAIT_SECONDS,
  type FenceRequest,
  LIMIT_BOUNDS,
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

/** A whole number within the domain's bounds for `key`: a value that would switch its rule off is an error. */
const bounded = (key: keyof typeof LIMIT_BOUNDS) =>
  z.number().int().min(LIMIT_BOUNDS[key].min).max(LIMIT_BOUNDS[key].max).default(DEFAULT_LIMITS[key]);

/**
 * Limits of one run. There is no in-flight limit here: it is the cluster's (set on its claims Lease),
 * so runs with different requests never see different caps.
 */
export const fenceLimitsSchema = z
  .object({
    maxUnhealthyNodes: bounded('maxUnhealthyNodes'),
    // Above 0 and below 1: 1 would never refuse, 0 would refuse every run with more than one node down.
    maxUnhealthyFraction: z.number().gt(0).lt(1).default(DEFAULT_LIMITS.maxUnhealthyFraction),
    allowControlPlane: z.boolean().default(DEFAULT_LIMITS.allowControlPlane),
    leaseGraceSeconds: bounded('leaseGraceSeconds'),
    powerOffDeadlineSeconds: bounded('powerOffDeadlineSeconds'),
    drainDeadlineSeconds: bounded('drainDeadlineSeconds'),
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
    forceDeleteTolerating: z.boolean().default(false),
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
