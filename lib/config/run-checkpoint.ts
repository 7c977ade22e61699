/**
 * The checkpoint a run without a workflow engine keeps on its Node (lib/app/fence/run-checkpoint.ts), written
 * and read back as a sealed record. Anyone who may patch the Node may write that annotation (the node's
 * own kubelet among them), and run ids are derived from what anyone can see, so a checkpoint proves
 * nothing by its content (SAFETY.md rule 2): it is continued from only when its seal, an HMAC-SHA256
 * under the run's own secret, verifies. That secret is made when the run is started (a random one in
 * the Function Compute task's payload, `States.UUID()` in the Step Functions execution's state) and is
 * never written to the cluster, so a record the run did not write itself cannot pass for its memory.
 * A sealed checkpoint is then read as strictly as a Step Functions state: one that does not parse, or
 * whose history contradicts itself, is a ValidationError (SAFETY.md rules 1 and 10); the run ignores it,
 * loudly, and starts afresh.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import * as z from 'zod';
import type { CheckpointCodec, RunCheckpoint } from '../app/fence/run-checkpoint.js';
import { canonicalJson } from '../domain/canonical-json.js';
import { ValidationError } from '../domain/errors.js';
import { assertHistory, type RunHistory } from '../domain/history.js';
import { FENCER_ANNOTATION } from '../domain/node-marks.js';
import { fenceRequestSchema } from './fence-request.js';
import { parseOrThrow } from './parse.js';
import { runHistorySchema, runSealSchema, stepDecisionSchema } from './step-state.js';

const checkpointSchema = z
  .object({
    request: fenceRequestSchema,
    history: runHistorySchema,
    decision: stepDecisionSchema.nullable(),
    writtenAt: z.iso.datetime({ offset: true }),
  })
  .strict();

/** What the seal is computed over: a purpose label, then the checkpoint's canonical JSON. */
const sealOf = (secret: string, checkpoint: unknown): Buffer =>
  createHmac('sha256', secret)
    .update(`${FENCER_ANNOTATION.runCheckpoint} v1\n${canonicalJson(checkpoint)}`)
    .digest();

const runIdOf = (value: unknown): unknown =>
  (value as { history?: { runId?: unknown } } | null)?.history?.runId;

/**
 * The codec of one run's checkpoints, sealed under `secret`. `decode` answers null for another run's
 * record (its `history.runId` says so), and throws a ValidationError for anything of this run it cannot
 * continue from: not JSON, no seal, a seal this run did not make, a checkpoint that does not parse.
 */
export function runCheckpointCodec(secret: string): CheckpointCodec {
  parseOrThrow(runSealSchema, secret, 'run seal');
  return {
    encode(checkpoint) {
      return JSON.stringify({ ...checkpoint, seal: sealOf(secret, checkpoint).toString('base64url') });
    },
    decode(json, runId) {
      let value: unknown;
      try {
        value = JSON.parse(json);
      } catch (error) {
        throw new ValidationError(`annotation ${FENCER_ANNOTATION.runCheckpoint} is not JSON`, {
          cause: error,
        });
      }
      if (runIdOf(value) !== runId) return null;
      const { seal, ...checkpoint } = value as { seal?: unknown };
      if (typeof seal !== 'string') {
        throw new ValidationError('it carries no seal: this run did not write it');
      }
      const expected = sealOf(secret, checkpoint);
      const given = Buffer.from(seal, 'base64url');
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
        throw new ValidationError("its seal is not this run's: this run did not write it");
      }
      const parsed = parseOrThrow(
        checkpointSchema,
        checkpoint,
        `run checkpoint (${FENCER_ANNOTATION.runCheckpoint})`,
      );
      assertHistory(parsed.history as RunHistory);
      return parsed as unknown as RunCheckpoint;
    },
  };
}
