/**
 * The checkpoint a run without a workflow engine keeps on its Node (lib/app/run-checkpoint.ts), read
 * back as strictly as a Step Functions state: anyone who may patch the Node may write that annotation,
 * so a checkpoint that does not parse, or whose history contradicts itself (a proof without a decision),
 * is a ValidationError rather than passing for proof (SAFETY.md rules 1 and 10); the run then ignores it,
 * loudly, and starts afresh (lib/app/run-checkpoint.ts).
 */
import * as z from 'zod';
import type { RunCheckpoint } from '../app/run-checkpoint.js';
import { ValidationError } from '../domain/errors.js';
import { assertHistory, type RunHistory } from '../domain/history.js';
import { FENCER_ANNOTATION } from '../domain/node-marks.js';
import { fenceRequestSchema } from './fence-request.js';
import { parseOrThrow } from './parse.js';
import { runHistorySchema, stepDecisionSchema } from './step-state.js';

const checkpointSchema = z
  .object({
    request: fenceRequestSchema,
    history: runHistorySchema,
    decision: stepDecisionSchema.nullable(),
    writtenAt: z.iso.datetime({ offset: true }),
  })
  .strict();

/** Parses the annotation's JSON into a checkpoint; throws a ValidationError naming the problem. */
export function parseRunCheckpoint(json: string): RunCheckpoint {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (error) {
    throw new ValidationError(`annotation ${FENCER_ANNOTATION.runCheckpoint} is not JSON`, { cause: error });
  }
  const parsed = parseOrThrow(checkpointSchema, value, `run checkpoint (${FENCER_ANNOTATION.runCheckpoint})`);
  assertHistory(parsed.history as RunHistory);
  return parsed as unknown as RunCheckpoint;
}
