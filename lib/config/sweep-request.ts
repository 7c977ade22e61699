/**
 * The sweep request schema, shared by `fencer sweep` and the scheduled sweep Lambda: unknown keys
 * rejected, every threshold and limit bounded, defaults from the domain.
 */
import * as z from 'zod';
import { DEFAULT_LIMITS } from '../domain/request.js';
import { DEFAULT_SWEEP_THRESHOLDS } from '../domain/sweep/model.js';
import type { SweepRequest } from '../domain/sweep/request.js';
import { clusterName } from './fence-request.js';

const seconds = z
  .number()
  .int()
  .min(0)
  .max(7 * 86_400);

export const sweepRequestSchema = z
  .object({
    cluster: clusterName,
    thresholds: z
      .object({
        notReadySeconds: seconds.default(DEFAULT_SWEEP_THRESHOLDS.notReadySeconds),
        stuckDeletingSeconds: seconds.default(DEFAULT_SWEEP_THRESHOLDS.stuckDeletingSeconds),
        attachErrorSeconds: seconds.default(DEFAULT_SWEEP_THRESHOLDS.attachErrorSeconds),
      })
      .strict()
      .default(() => ({ ...DEFAULT_SWEEP_THRESHOLDS })),
    remediate: z.boolean().default(false),
    dryRun: z.boolean().default(false),
    limits: z
      .object({
        maxUnhealthyNodes: z.number().int().min(1).max(10_000).default(DEFAULT_LIMITS.maxUnhealthyNodes),
        maxUnhealthyFraction: z.number().min(0).max(1).default(DEFAULT_LIMITS.maxUnhealthyFraction),
      })
      .strict()
      .default(() => ({
        maxUnhealthyNodes: DEFAULT_LIMITS.maxUnhealthyNodes,
        maxUnhealthyFraction: DEFAULT_LIMITS.maxUnhealthyFraction,
      })),
    maxProviderCalls: z.number().int().min(1).max(1000).default(50),
  })
  .strict();

/** Parses a sweep request; throws a ZodError naming every problem. */
export const parseSweepRequest = (input: unknown): SweepRequest => sweepRequestSchema.parse(input);
