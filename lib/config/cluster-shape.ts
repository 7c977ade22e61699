/**
 * What every deployment of the fencer says about a cluster, whatever the cloud: its name, the fence
 * request its triggers send, the health check's and the sweep's schedules, the event router's bounds
 * and the run's limits. The AWS stack (infra/config.ts) and the Alibaba Cloud stack
 * (infra-alicloud/config.ts) extend this one shape with their own access and placement, so a default
 * or a bound changes in one place for both.
 */
import * as z from 'zod';
import { parseControlPlaneLabels } from '../domain/control-plane.js';
import { CONTROL_PLANE_LABELS_ENV } from './control-plane-labels.js';
import { clusterName } from './fence-request.js';

/** The health check's schedule and threshold. */
export const healthCheckSchema = z
  .object({
    everyMinutes: z.number().int().min(1).max(60).default(1),
    notReadyThresholdSeconds: z.number().int().min(30).max(86_400).default(180),
  })
  .strict()
  .default({ everyMinutes: 1, notReadyThresholdSeconds: 180 });

/** The scheduled sweep of zombie VolumeAttachments: report-only unless `remediate`. */
export const sweepScheduleSchema = z
  .object({
    everyMinutes: z.number().int().min(1).max(1440).default(15),
    remediate: z.boolean().default(false),
  })
  .strict()
  .default({ everyMinutes: 15, remediate: false });

/** The event router's bounds. */
export const routerBoundsSchema = z
  .object({
    /** Runs one event may start (lib/app/triggers/route-trigger.ts); the rest are refused together. */
    maxRunsPerEvent: z.number().int().min(1).max(1000).default(10),
    /** Router invocations at once: a burst of events queues instead of hammering the API server. */
    concurrency: z.number().int().min(1).max(100).default(2),
  })
  .strict()
  .default({ maxRunsPerEvent: 10, concurrency: 2 });

/** The fencing functions' environment for the cluster's own control-plane labels; none when it has none. */
export const controlPlaneLabelsEnvironment = (labels: readonly string[]): Record<string, string> =>
  labels.length > 0 ? { [CONTROL_PLANE_LABELS_ENV]: labels.join(',') } : {};

/** The fields both stacks share, to spread into each stack's cluster object. */
export const sharedClusterFields = {
  /** The cluster name, as in the instances' `kubernetes.io/cluster/<name>` tag. */
  name: clusterName,
  /** The event router's bounds. */
  router: routerBoundsSchema,
  /** Allow terminating instances that cannot be stopped (one-time Spot); grants the terminate call. */
  allowTerminate: z.boolean().default(false),
  /** The fence request every trigger sends, minus node and cluster (lib/config/fence-request.ts). */
  requestDefaults: z.record(z.string(), z.unknown()).default({}),
  healthCheck: healthCheckSchema,
  sweep: sweepScheduleSchema,
  /**
   * Label keys that mark the cluster's control-plane nodes on top of the common role labels, for an
   * installer that marks them some other way (`FENCER_CONTROL_PLANE_LABELS` of the fencing functions).
   */
  controlPlaneLabels: z
    .array(z.string().min(1).max(316))
    .max(20)
    .default([])
    .superRefine((keys, ctx) => {
      try {
        parseControlPlaneLabels(keys.join(','));
      } catch (error) {
        ctx.addIssue({ code: 'custom', message: (error as Error).message });
      }
    }),
  maxSteps: z.number().int().min(10).max(2000).default(360),
  timeoutMinutes: z.number().int().min(5).max(1440).default(45),
};
