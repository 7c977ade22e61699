/**
 * The JSON a fencing run carries between Step Functions states, and the input a run starts with.
 * The state machine (infra/constructs/fencing-workflow.ts) builds the first state from the execution's
 * input and context; every step checks the state it gets, because a state that does not parse must stop
 * the run (ValidationError is caught, never retried), not be guessed at.
 */
import * as z from 'zod';
import { Phase } from '../domain/phases.js';
import { TRIGGER_RECORD_LIMITS, TriggerSource } from '../ports/workflow.js';
import { fenceRequestSchema, nodeName } from './fence-request.js';

const iso = z.iso.datetime({ offset: true }).max(64);
const nullableIso = iso.nullable();

const powerEvidenceSchema = z.looseObject({
  instanceId: z.string().max(64),
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
  action: z.string().max(64).nullable(),
  reason: z.string().max(64).nullable(),
  rule: z.string().max(128).nullable(),
});

/** A run's memory (lib/domain/history.ts); its consistency is checked by the domain's `assertHistory`. */
export const runHistorySchema = z
  .object({
    runId: z.string().min(1).max(80),
    startedAt: iso,
    target: z
      .object({
        node: z.string().max(253),
        nodeUid: z.string().max(64),
        provider: z.string().max(32),
        instanceId: z.string().max(64),
      })
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
  reason: z.string().max(64).nullable(),
  // The step's own sentence; generous, since a refusal may list the nodes it counted.
  message: z.string().max(16_384),
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
    notification: z
      .object({ subject: z.string().max(99) })
      .strict()
      .optional(),
  })
  .strict();
export type StepState = z.infer<typeof stepStateSchema>;

/** The input of an execution: what the triggers send (lib/ports/workflow.ts `FenceRunInput`). */
export const runInputSchema = z
  .object({
    request: fenceRequestSchema,
    trigger: z
      .object({
        source: z.enum(TriggerSource),
        eventId: z.string().min(1).max(TRIGGER_RECORD_LIMITS.eventId),
        eventTime: iso.optional(),
        detail: z.string().max(TRIGGER_RECORD_LIMITS.detail),
        receivedAt: iso,
        node: nodeName,
        instanceId: z.string().max(64).optional(),
      })
      .strict()
      .optional(),
  })
  .strict();
