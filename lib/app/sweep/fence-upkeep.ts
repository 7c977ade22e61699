/**
 * Keeping standing storage fences alive (SAFETY.md rule 6): every sweep but a dry run looks at each node
 * that carries the fencer's own taint and a fence record with blocklist entries, reads those entries
 * from the storage cluster and the machine's power from its provider, decides (`fence-upkeep.ts` in the
 * domain) and lengthens exactly the recorded entries that would lapse while the node stays fenced. It
 * adds no entry a run did not record and lifts none: the fence run and `unfence` own those moves.
 */
import {
  decideUpkeep,
  type FenceUpkeepDecision,
  type ListedRecordedEntry,
  UpkeepVerdict,
} from '../../domain/fence-upkeep.js';
import type { PowerEvidence } from '../../domain/instance.js';
import { type FenceRecord, outOfServiceState } from '../../domain/node-marks.js';
import type { Fallible } from '../../domain/observation.js';
import type { NodeView } from '../../ports/cluster.js';
import type { StorageFencer } from '../../ports/storage-fencer.js';
import { faultOf } from '../shared/faults.js';
import { parseFenceRecord, toTaintSnapshot } from '../shared/node-marks.js';
import type { SweepDeps } from './deps.js';

/** Bounds one node's storage and provider calls: a sweep must not hang on one fence. */
const CALL_BUDGET_MS = 20_000;

/** What the sweep did for one fenced node's entries. */
export const UpkeepAction = {
  /** Nothing was due (healthy), or nothing may be done (may-lapse, conflict, lost entries only). */
  None: 'none',
  Renewed: 'renewed',
  WouldRenew: 'would-renew',
  /** A fencing run holds the node's claim: the run keeps its own entries. */
  Skipped: 'skipped',
  /** No storage fencer is configured here: the entries were not checked. */
  Unchecked: 'unchecked',
  Failed: 'failed',
} as const;
export type UpkeepAction = (typeof UpkeepAction)[keyof typeof UpkeepAction];

export interface FenceUpkeepResult {
  readonly node: string;
  /** `null` when nothing was decided (skipped, unchecked, or the read failed). */
  readonly verdict: UpkeepVerdict | null;
  readonly action: UpkeepAction;
  readonly why: string;
  /** The recorded entries as last read (after a renewal: as read back). */
  readonly entries: readonly ListedRecordedEntry[];
}

export interface FenceUpkeepReport {
  /** Nodes with the fencer's taint and recorded entries. */
  readonly fencedNodes: number;
  readonly renewed: number;
  /** Nodes with a recorded entry no longer listed, or with one that covers another Node. */
  readonly lost: number;
  readonly failed: number;
  /** Nodes whose entries no storage fencer here could check (a CLI without the Ceph settings). */
  readonly unchecked: number;
  readonly nodes: readonly FenceUpkeepResult[];
}

interface FencedNode {
  readonly view: NodeView;
  readonly record: FenceRecord & { readonly blocklist: readonly string[] };
}

/** The nodes whose own fencer taint stands beside a record with blocklist entries. */
function fencedNodes(nodes: readonly NodeView[]): FencedNode[] {
  return nodes.flatMap((view) => {
    const record = parseFenceRecord(view.annotations);
    if (!record?.blocklist?.length) return [];
    const taints = outOfServiceState(view.taints.map(toTaintSnapshot), record);
    return taints.ours ? [{ view, record: { ...record, blocklist: record.blocklist } }] : [];
  });
}

/** The machine's power now; `null` when no provider knows it (bare metal). A failed read is not off. */
async function machineOf(deps: SweepDeps, fenced: FencedNode): Promise<Fallible<PowerEvidence> | null> {
  const providerId = fenced.view.providerId;
  const compute = providerId ? deps.compute.forProviderId(providerId) : null;
  if (!providerId || !compute) return null;
  try {
    const ref = compute.parseProviderId(providerId);
    if (fenced.record.instanceId && ref.instanceId !== fenced.record.instanceId) {
      const message = `the Node names ${ref.instanceId}, its fence record ${fenced.record.instanceId}`;
      return { ok: false, error: { name: 'RecordNamesAnotherMachine', message } };
    }
    // The sweep's own way of asking (one batched read), where the provider has it.
    if (compute.observePowerMany) {
      const answer = await compute.observePowerMany([ref], { maxCalls: 1 });
      const power = answer.results.get(ref.instanceId);
      return power ?? { ok: false, error: { name: 'NoAnswer', message: `no answer for ${ref.instanceId}` } };
    }
    return { ok: true, value: await compute.observePower(ref) };
  } catch (error) {
    return { ok: false, error: faultOf(error) };
  }
}

async function keepOne(
  deps: SweepDeps,
  storage: StorageFencer,
  fenced: FencedNode,
  others: readonly NodeView[],
  dryRun: boolean,
): Promise<FenceUpkeepResult> {
  const node = fenced.view.name;
  const request = { node, entries: fenced.record.blocklist };
  const signal = AbortSignal.timeout(CALL_BUDGET_MS);
  // The storage API may serve one request at a time: its two reads one after the other.
  const read = async () => ({
    listed: await storage.readRecorded(request, { signal }),
    daemons: await storage.storageDaemons({ signal }),
  });
  const [{ listed, daemons }, machine] = await Promise.all([read(), machineOf(deps, fenced)]);
  const decision: FenceUpkeepDecision = decideUpkeep({
    node,
    recorded: fenced.record.blocklist,
    listed,
    machine,
    otherNodes: others.map((n) => ({ name: `node ${n.name}`, addresses: n.addresses.map((a) => a.address) })),
    daemons: daemons.daemons,
    observedAt: deps.clock.now().toISOString(),
    renewWithinSeconds: storage.renewWithinSeconds ?? 0,
  });
  const result = { node, verdict: decision.verdict, why: decision.why, entries: listed };
  if (decision.renew.length === 0) return { ...result, action: UpkeepAction.None };
  if (!storage.renew) {
    return {
      ...result,
      action: UpkeepAction.Failed,
      why: `${decision.why}; ${storage.storage} cannot lengthen entries`,
    };
  }
  const outcome = await storage.renew({ node, entries: decision.renew }, { dryRun, signal });
  if (outcome.kind === 'dry-run') return { ...result, action: UpkeepAction.WouldRenew };
  const after = new Map(outcome.renewed.map((r) => [r.entry, r]));
  return {
    ...result,
    action: UpkeepAction.Renewed,
    entries: listed.map((l) => after.get(l.entry) ?? l),
  };
}

function record(deps: SweepDeps, result: FenceUpkeepResult): void {
  deps.metrics.count('FenceUpkeep', { verdict: result.verdict ?? 'none', action: result.action });
  const fields = { node: result.node, verdict: result.verdict, action: result.action, why: result.why };
  const loud =
    result.action === UpkeepAction.Failed ||
    result.action === UpkeepAction.Unchecked ||
    result.verdict === UpkeepVerdict.Lost ||
    result.verdict === UpkeepVerdict.Conflict;
  if (loud) deps.log.warn('storage fence upkeep needs attention', { ...fields, entries: result.entries });
  else deps.log.info('storage fence upkeep', fields);
}

/**
 * One pass over the fenced nodes. `inFlight` names the nodes a fencing run holds; `dryRun` lengthens
 * nothing and says what it would.
 */
export async function keepFencesAlive(
  deps: SweepDeps,
  nodes: readonly NodeView[],
  inFlight: readonly string[],
  dryRun: boolean,
): Promise<FenceUpkeepReport> {
  const storage = deps.storage?.[0];
  const results: FenceUpkeepResult[] = [];
  for (const fenced of fencedNodes(nodes)) {
    const node = fenced.view.name;
    const base = {
      node,
      verdict: null,
      entries: fenced.record.blocklist.map((entry) => ({ entry, until: null })),
    };
    let result: FenceUpkeepResult;
    if (inFlight.includes(node)) {
      result = { ...base, action: UpkeepAction.Skipped, why: 'a fencing run holds its claim' };
    } else if (!storage) {
      const why = `no storage fencer is configured here: ${fenced.record.blocklist.join(', ')} not checked, and may lapse while ${node} is fenced`;
      result = { ...base, action: UpkeepAction.Unchecked, why };
    } else {
      try {
        result = await keepOne(
          deps,
          storage,
          fenced,
          nodes.filter((n) => n.name !== node),
          dryRun,
        );
      } catch (error) {
        result = { ...base, action: UpkeepAction.Failed, why: faultOf(error).message };
      }
    }
    record(deps, result);
    results.push(result);
  }
  const count = (p: (r: FenceUpkeepResult) => boolean) => results.filter(p).length;
  return {
    fencedNodes: results.length,
    renewed: count((r) => r.action === UpkeepAction.Renewed),
    lost: count((r) => r.verdict === UpkeepVerdict.Lost || r.verdict === UpkeepVerdict.Conflict),
    failed: count((r) => r.action === UpkeepAction.Failed),
    unchecked: count((r) => r.action === UpkeepAction.Unchecked),
    nodes: results,
  };
}
