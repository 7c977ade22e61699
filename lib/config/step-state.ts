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

const fenceEntrySchema = z.looseObject({
  kind: z.enum(['range', 'address']),
  entry: z.string().max(64),
  source: z.string().max(128),
});

/** A blocklist observation held as proof (lib/domain/blocklist.ts `BlocklistEvidence`). */
const blocklistEvidenceSchema = z.looseObject({
  node: z.string().max(253),
  observedAt: iso,
  expected: z.array(fenceEntrySchema).max(64),
  found: z.array(fenceEntrySchema.extend({ until: iso })).max(64),
  missing: z.array(fenceEntrySchema).max(64),
  related: z.array(z.looseObject({ entry: z.string().max(64), until: iso })).max(64),
  confirmed: z.boolean(),
});

const isolationSchema = z.object({ machine: z.boolean(), storage: z.boolean(), watch: z.boolean() }).strict();

/**
 * A run's memory (lib/domain/history.ts); its consistency is checked by the domain's `assertHistory`.
 * The storage fields are absent from a run a version without storage fencing started: such a run
 * committed to its machine alone, and reads on as one.
 */
export const runHistorySchema = z
  .object({
    runId: z.string().min(1).max(80),
    startedAt: iso,
    target: z
      .object({
        node: z.string().max(253),
        nodeUid: z.string().max(64),
        // None for a node fenced at the storage layer alone (bare metal).
        provider: z.string().max(32).nullable(),
        instanceId: z.string().max(64),
        launchTime: iso.optional(),
      })
      .nullable(),
    decidedToFenceAt: nullableIso,
    isolation: isolationSchema.nullish(),
    storageBefore: z.array(z.string().max(64)).max(64).nullish(),
    storageProof: blocklistEvidenceSchema.nullish(),
    powerOffRequestedAt: nullableIso,
    storageFenceRequestedAt: nullableIso.optional(),
    proofOfOff: powerEvidenceSchema.nullable(),
    taintedAt: nullableIso,
    witnessed: z.array(z.string().max(64)).max(16).optional(),
    steps: z.array(stepRecordSchema).max(100),
  })
  .strict()
  .transform((h) => ({
    ...h,
    isolation: h.isolation ?? (h.target === null ? null : { machine: true, storage: false, watch: false }),
    storageBefore: h.storageBefore ?? (h.target === null ? null : []),
    storageProof: h.storageProof ?? null,
    storageFenceRequestedAt: h.storageFenceRequestedAt ?? null,
  }));

/** The last step's decision (lib/app/fence/outcome.ts); only what the next step reads is checked closely. */
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
 * A run's seal: the secret its checkpoints are sealed under (lib/config/run-checkpoint.ts), a UUID
 * from the state machine (`States.UUID()`) or 32 random bytes, base64url, in a Function Compute task.
 */
export const runSealSchema = z.string().regex(/^[A-Za-z0-9_-]{32,128}$/, 'not a run seal');

/**
 * The state between steps. `history` and `decision` are absent (or null) before the first step: a Pass
 * state cannot set a null, so the state machine leaves them out.
 */
export const stepStateSchema = z
  .object({
    request: fenceRequestSchema,
    run: z
      .object({
        id: z.string().min(1).max(80),
        startedAt: iso,
        // The run's checkpoint secret (lib/config/run-checkpoint.ts); absent from runs of older versions.
        seal: runSealSchema.optional(),
      })
      .strict(),
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
