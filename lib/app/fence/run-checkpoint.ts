/**
 * The memory of a run whose runner keeps none between attempts (an asynchronous Function Compute
 * invocation, retried by Function Compute after a crash or a timeout): the run's state, recorded on its
 * Node in the `kube-fencer.io/run-checkpoint` annotation, beside the fence record. The cluster stays
 * the one source of truth, and the next attempt of the same run continues from what the last one
 * recorded instead of starting over: it keeps the decision's time, so an instance started again after
 * the power-off is seen as started again (SAFETY.md rule 2), never powered off a second time.
 *
 * A checkpoint is written from the step that commits the run to fencing on, right before that step's
 * power-off (so a crash just after the power-off request still leaves the decision's time behind), and
 * then only when the run's memory changes (power-off request, proof, taint, the end): before the
 * commitment nothing was done that a retry must know about, and a dry run writes nothing at all
 * (SAFETY.md rule 8). It is sealed under the run's own secret (lib/config/run-checkpoint.ts), so only
 * this run's records are ever continued from, and removed when the run ends, so the Node does not keep
 * the request.
 */
import { canonicalJson } from '../../domain/canonical-json.js';
import { checkpointProblems } from '../../domain/checkpoint.js';
import { KubernetesApiError, ValidationError } from '../../domain/errors.js';
import type { RunHistory } from '../../domain/history.js';
import { FENCER_ANNOTATION } from '../../domain/node-marks.js';
import type { FenceRequest } from '../../domain/request.js';
import type { NodeEvents, NodeReads, NodeWrites } from '../../ports/cluster.js';
import type { FenceStepState } from './fence-step.js';

/** What a checkpoint holds: the run's state between two steps, and when it was written. */
export interface RunCheckpoint extends FenceStepState {
  readonly writtenAt: string;
}

/** How one run's checkpoints are written and read back (lib/config/run-checkpoint.ts: sealed JSON). */
export interface CheckpointCodec {
  encode(checkpoint: RunCheckpoint): string;
  /**
   * The checkpoint `json` holds if it is run `runId`'s own record; null if it is another run's; a
   * ValidationError if it claims to be this run's and is not one this run wrote, or does not parse.
   */
  decode(json: string, runId: string): RunCheckpoint | null;
}

/** Where a run's checkpoints are kept. */
export interface RunCheckpoints {
  /** The run's last checkpoint on `node`, or null when there is none of this run. */
  read(node: string, runId: string): Promise<RunCheckpoint | null>;
  /** Records `state` if it says something new the next attempt needs; returns whether it wrote. */
  record(state: FenceStepState): Promise<boolean>;
  /** Removes the run's checkpoint from `node` once the run has ended; another run's is left alone. */
  clear(node: string, runId: string): Promise<boolean>;
}

/** The fields of a history whose change the next attempt must know about. */
const memoryOf = (history: RunHistory | undefined, done: boolean): string =>
  JSON.stringify([
    history?.target,
    history?.decidedToFenceAt,
    history?.powerOffRequestedAt,
    history?.proofOfOff,
    history?.taintedAt,
    done,
  ]);

const isNotFound = (error: unknown): boolean =>
  error instanceof KubernetesApiError && error.statusCode === 404;

/** The Event a checkpoint that cannot be continued from leaves on its Node. */
export const CHECKPOINT_IGNORED_EVENT = 'FencingCheckpointIgnored';

/** What node checkpoints read and write through: the Node, its annotation, and its Events if offered. */
type CheckpointCluster = Pick<NodeReads, 'getNode'> & Pick<NodeWrites, 'annotateNode'> & Partial<NodeEvents>;

/** One run's checkpoints on its Node, and the memory it last recorded or read there. */
interface CheckpointStore {
  readonly cluster: CheckpointCluster;
  readonly codec: CheckpointCodec;
  readonly now: () => Date;
  last: string | undefined;
}

/** Ignores the Node's checkpoint with a Warning Event saying why; the run starts afresh. */
async function ignoreCheckpoint(store: CheckpointStore, node: string, why: string): Promise<null> {
  await store.cluster.recordNodeEvent?.(node, {
    type: 'Warning',
    reason: CHECKPOINT_IGNORED_EVENT,
    message: `Ignored the run checkpoint ${FENCER_ANNOTATION.runCheckpoint}: ${why}. The run starts afresh from what it observes.`,
    action: 'Ignore',
  });
  return null;
}

/** Writes (or, with null, removes) the checkpoint annotation; false when the Node is gone. */
async function annotateUnlessGone(
  store: CheckpointStore,
  node: string,
  value: string | null,
): Promise<boolean> {
  try {
    await store.cluster.annotateNode(node, { [FENCER_ANNOTATION.runCheckpoint]: value }, { dryRun: false });
    return true;
  } catch (error) {
    // A node that is gone has nowhere to keep a checkpoint, and needs none: the next step sees it gone.
    if (isNotFound(error)) return false;
    throw error;
  }
}

async function readCheckpoint(
  store: CheckpointStore,
  node: string,
  runId: string,
): Promise<RunCheckpoint | null> {
  const view = await store.cluster.getNode(node);
  const text = view?.annotations[FENCER_ANNOTATION.runCheckpoint];
  if (view == null || text === undefined) return null;
  let checkpoint: RunCheckpoint | null;
  try {
    checkpoint = store.codec.decode(text, runId);
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    return ignoreCheckpoint(store, node, error.message);
  }
  if (checkpoint === null) return null;
  const problems = checkpointProblems(checkpoint.history, view.uid);
  if (problems.length > 0) return ignoreCheckpoint(store, node, problems.join('; '));
  store.last = memoryOf(checkpoint.history, checkpoint.decision?.done ?? false);
  return checkpoint;
}

async function recordCheckpoint(store: CheckpointStore, state: FenceStepState): Promise<boolean> {
  const { request, history, decision } = state;
  // Before the commitment there is nothing to remember, unless a checkpoint of this run exists
  // already (recorded before an action the provider then refused): it is kept current.
  if (request.dryRun || (history.decidedToFenceAt === null && store.last === undefined)) return false;
  const memory = memoryOf(history, decision?.done ?? false);
  if (memory === store.last) return false;
  const checkpoint: RunCheckpoint = { request, history, decision, writtenAt: store.now().toISOString() };
  if (!(await annotateUnlessGone(store, request.node, store.codec.encode(checkpoint)))) return false;
  store.last = memory;
  return true;
}

async function clearCheckpoint(store: CheckpointStore, node: string, runId: string): Promise<boolean> {
  const view = await store.cluster.getNode(node);
  const text = view?.annotations[FENCER_ANNOTATION.runCheckpoint];
  if (view == null || text === undefined) return false;
  // Only this run's own record goes: another run's (or a forgery) is not this run's to touch.
  try {
    if (store.codec.decode(text, runId) === null) return false;
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    return false;
  }
  if (!(await annotateUnlessGone(store, node, null))) return false;
  store.last = undefined;
  return true;
}

/**
 * Checkpoints in the Node's annotation, through the Cluster port (a merge of that one annotation). A
 * checkpoint that does not parse, is another Node object's, or tells a history that could not have
 * happened is ignored with a Warning Event on the Node: it never blocks the run, which starts afresh.
 */
export function nodeCheckpoints(
  cluster: CheckpointCluster,
  codec: CheckpointCodec,
  now: () => Date = () => new Date(),
): RunCheckpoints {
  const store: CheckpointStore = { cluster, codec, now, last: undefined };
  return {
    read: (node, runId) => readCheckpoint(store, node, runId),
    record: (state) => recordCheckpoint(store, state),
    clear: (node, runId) => clearCheckpoint(store, node, runId),
  };
}

/**
 * The checkpoints of a run started without a seal (by a version before sealed checkpoints): nothing
 * on the Node can be told from a forgery, so none is read or written; an attempt of such a run that
 * crashes starts afresh, as any new run would.
 */
export const NO_CHECKPOINTS: RunCheckpoints = {
  read: async () => null,
  record: async () => false,
  clear: async () => false,
};

/** The request a checkpoint was written for must be this run's: a checkpoint is never applied to another. */
export const sameRequest = (a: FenceRequest, b: FenceRequest): boolean =>
  canonicalJson(a) === canonicalJson(b);
