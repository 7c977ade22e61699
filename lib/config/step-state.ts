/**
 * The JSON a fencing run carries between Step Functions states, and the input a run starts with.
 * The state machine (infra/constructs/fencing-workflow.ts) builds the first state from the execution's
 * input and context; every step checks the state it gets, because a state that does not parse must stop
 * the run (ValidationError is caught, never retried), not be guessed at.
 */
import * as z from 'zod';
import { Phase } from '../domain/phases.js';
import { fenceRequestSchema } from './fence-request.js';

const iso = z.iso.datetime({ offset: true });
const nullableIso = iso.nullable();

const powerEvidenceSchema = z.looseObject({
  instanceId: z.string(),
  state: z.enum([
    'pending',
    'running',
    'stopping',
    'stopped',
    'shutting-down',
    'terminated',
    'not-found',
    'unknown',
  ]),
  observedAt: iso,
});

const stepRecordSchema = z.object({
  at: iso,
  phase: z.enum(Phase),
  action: z.string().nullable(),
  reason: z.string().nullable(),
  rule: z.string().nullable(),
});

/** A run's memory (lib/domain/history.ts); its consistency is checked by the domain's `assertHistory`. */
export const runHistorySchema = z
  .object({
    runId: z.string().min(1).max(80),
    startedAt: iso,
    target: z
      .object({ node: z.string(), nodeUid: z.string(), provider: z.string(), instanceId: z.string() })
      .nullable(),
    decidedToFenceAt: nullableIso,
    powerOffRequestedAt: nullableIso,
    proofOfOff: powerEvidenceSchema.nullable(),
    taintedAt: nullableIso,
    steps: z.array(stepRecordSchema).max(100),
  })
  .strict();

/** The last step's decision (lib/app/outcome.ts); only what the next step reads is checked closely. */
export const stepDecisionSchema = z.looseObject({
  at: iso,
  phase: z.enum(Phase),
  done: z.boolean(),
  outcome: z.enum(['in-progress', 'fenced', 'unfenced', 'refused', 'failed', 'dry-run']),
  reason: z.string().nullable(),
  message: z.string(),
  waitSeconds: z.number().int().min(0),
});

/**
 * The state between steps. `history` and `decision` are absent (or null) before the first step: a Pass
 * state cannot set a null, so the state machine leaves them out.
 */
export const stepStateSchema = z
  .object({
    request: fenceRequestSchema,
    run: z.object({ id: z.string().min(1).max(80), startedAt: iso }).strict(),
    attempts: z.object({ count: z.number().int().min(0) }).strict(),
    history: runHistorySchema.nullish().transform((h) => h ?? null),
    decision: stepDecisionSchema.nullish().transform((d) => d ?? null),
  })
  .strict();
export type StepState = z.infer<typeof stepStateSchema>;

/** The input of an execution: what the triggers send (lib/ports/workflow.ts `FenceRunInput`). */
export const runInputSchema = z
  .object({
    request: fenceRequestSchema,
    trigger: z
      .object({ source: z.string(), eventId: z.string(), detail: z.string(), receivedAt: iso })
      .strict()
      .optional(),
  })
  .strict();
