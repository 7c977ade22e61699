/**
 * A run checkpoint (`kube-fencer.io/run-checkpoint`) proves nothing by itself (SAFETY.md rule 2: a
 * record the run did not write itself never stands in for an observation). Anyone who may patch the
 * Node may write it, so before a run continues from one, the checkpoint is judged as a whole: it must
 * be this Node object's (its uid) and a history that could have happened. One that is not is ignored,
 * loudly, and the run starts afresh from what it observes.
 */
import { ValidationError } from './errors.js';
import { assertHistory, type RunHistory } from './history.js';

/** Why a checkpoint of this run cannot be continued from on this Node; empty when it can. */
export function checkpointProblems(history: RunHistory, nodeUid: string): string[] {
  const problems: string[] = [];
  try {
    assertHistory(history);
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    problems.push(error.message);
  }
  const { target, isolation, proofOfOff, storageProof, taintedAt } = history;
  if (target !== null && target.nodeUid !== nodeUid) {
    problems.push(`written for Node uid ${target.nodeUid}, the Node is now uid ${nodeUid}`);
  }
  if (isolation !== null) {
    const machineProof = isolation.machine || isolation.watch;
    if (!isolation.machine && !isolation.storage && !isolation.watch) {
      problems.push('its isolation plan takes no proof at all');
    }
    if (isolation.machine && (target === null || target.instanceId === '')) {
      problems.push('its plan powers a machine off, but it names no machine');
    }
    if (storageProof !== null && !isolation.storage) problems.push('a storage proof without a storage plan');
    if (proofOfOff !== null && !machineProof) problems.push('a proof of off without a machine in its plan');
    if (taintedAt !== null && machineProof && proofOfOff === null) {
      problems.push('a release without the proof of off its plan needs');
    }
    if (taintedAt !== null && isolation.storage && storageProof === null) {
      problems.push('a release without the storage proof its plan needs');
    }
  }
  return problems;
}
