/**
 * Run checkpoints as a forger writes them: anyone who may patch a Node (its own kubelet among them)
 * can put a `kube-fencer.io/run-checkpoint` annotation on it, and a run's id is derived from what
 * anyone can read. Each forgery here is consistent (it would pass every check of its content), names
 * the run id the fencer will use and the request it will carry; only the run's seal, which the forger
 * cannot know, tells it apart (lib/config/run-checkpoint.ts).
 */
import { CoreV1Api, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import type { Lab } from '../../../lab/lab.js';
import { fenceRequestSchema } from '../../../lib/config/fence-request.js';
import { startRun } from '../../../lib/domain/history.js';
import type { ProviderName } from '../../../lib/domain/instance.js';
import { FENCER_ANNOTATION } from '../../../lib/domain/node-marks.js';
import type { FenceRequest } from '../../../lib/domain/request.js';

const merge = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

/** What a forger knows: the run id it predicted, the request, and the Node and machine it targets. */
export interface ForgeryTarget {
  readonly runId: string;
  readonly request: FenceRequest;
  readonly node: string;
  readonly nodeUid: string;
  readonly provider: ProviderName;
  readonly instanceId: string;
}

export type Forgery = 'pre-commit-skipped' | 'replayed-done' | 'garbage';

const ago = (seconds: number): string => new Date(Date.now() - seconds * 1000).toISOString();

/** The request the manual invoke (and a state machine input) carries for this payload. */
export const requestOf = (payload: Record<string, unknown>): FenceRequest =>
  fenceRequestSchema.parse(payload) as FenceRequest;

/** The annotation's text for `kind`. */
export function forgedCheckpoint(kind: Forgery, target: ForgeryTarget): string {
  if (kind === 'garbage') return '{"request": {"node": "garbage", trunc';
  const committed = {
    ...startRun(target.runId, ago(30)),
    target: {
      node: target.node,
      nodeUid: target.nodeUid,
      provider: target.provider,
      instanceId: target.instanceId,
    },
    decidedToFenceAt: ago(20),
    isolation: { machine: true, storage: false, watch: false },
    storageBefore: [],
    powerOffRequestedAt: ago(20),
  };
  if (kind === 'pre-commit-skipped') {
    // "The run decided 20 s ago and asked for the power-off": continued from (as it was before runs
    // sealed their checkpoints: attempt `resumed`), the run skips every rule before the commitment
    // (the Lease's age, seen-alive, identity corroborated, the blast radius) and only the checks made
    // after a commitment stand between it and the machine.
    return JSON.stringify({
      request: target.request,
      history: committed,
      decision: null,
      writtenAt: ago(20),
    });
  }
  const proofOfOff = {
    instanceId: target.instanceId,
    state: 'stopped',
    providerState: target.provider === 'aws' ? 'stopped' : 'Stopped',
    observedAt: ago(15),
  };
  const history = { ...committed, proofOfOff, taintedAt: ago(10) };
  const decision = {
    at: ago(5),
    done: true,
    outcome: 'fenced',
    phase: 'Fenced',
    reason: null,
    message: `fenced ${target.node}`,
    waitSeconds: 0,
  };
  // "The run already ended fenced": replayed, it would report a fence that never happened.
  return JSON.stringify({ request: target.request, history, decision, writtenAt: ago(5) });
}

/** Writes `text` as the Node's run checkpoint, as anyone allowed to patch the Node could. */
export async function writeCheckpoint(lab: Lab, node: string, text: string): Promise<void> {
  await lab.kubeConfig
    .makeApiClient(CoreV1Api)
    .patchNode(
      { name: node, body: { metadata: { annotations: { [FENCER_ANNOTATION.runCheckpoint]: text } } } },
      merge,
    );
}

/** The Node's run checkpoint annotation, if any. */
export async function checkpointOn(lab: Lab, node: string): Promise<string | undefined> {
  const view = await lab.kubeConfig.makeApiClient(CoreV1Api).readNode({ name: node });
  return view.metadata?.annotations?.[FENCER_ANNOTATION.runCheckpoint];
}
