/**
 * An independent checker of SAFETY.md for fence runs. It is written from the contract, not from
 * decide(): it imports only types from the code under test and keeps its own account of the run (when
 * it committed, whether an observation since then showed the machine off), its own idea of which
 * states are off, which phases end a run, which actions release volumes, who owns a taint and whether
 * the Node is the machine. It fails loudly on the first decision that breaks a rule.
 */
import type {
  Action,
  Decision,
  FenceRequest,
  Observation,
  ObservedNode,
  PowerEvidence,
  RunHistory,
  TaintSnapshot,
} from '../../../../lib/domain/index.js';
import { holdersCoveredBy } from '../../../../lib/domain/rules/storage-witness.js';
import { NODE } from './fixtures.js';

const OFF = new Set(['stopped', 'terminated', 'not-found']);
const ENDS = new Set(['Fenced', 'Unfenced', 'Refused', 'Failed', 'DryRunReported']);
const RELEASES = new Set(['taint', 'force-delete-pods', 'delete-pods', 'delete-volume-attachments']);
const OOS_KEY = 'node.kubernetes.io/out-of-service';
const INSTANCE_KEYED_DRIVERS = new Set(['ebs.csi.aws.com', 'diskplugin.csi.alibabacloud.com']);
const STARTED = new Set(['pending', 'running', 'stopping']);

const ms = (iso: string): number => Date.parse(iso);

/** The provider's power answer, when it answered about the node's own instance. */
export function powerOf(observation: Observation): PowerEvidence | null {
  const instance = observation.instance;
  return instance?.resolved && instance.power.ok ? instance.power.value : null;
}

const fresh = (iso: string | null, readAt: number, graceSeconds: number): boolean =>
  iso !== null && readAt - ms(iso) < graceSeconds * 1000;

/** The API server's stamp is truncated to the second: the write may have been up to a second later. */
const writtenFresh = (iso: string | null, readAt: number, graceSeconds: number): boolean =>
  iso !== null && readAt - (ms(iso) + 999) < graceSeconds * 1000;

/** Any sign of life the contract forbids acting against, judged when the node was read. */
export function looksAlive(node: ObservedNode, graceSeconds: number): boolean {
  const readAt = ms(node.readAt);
  return (
    node.ready === 'True' ||
    fresh(node.leaseRenewTime, readAt, graceSeconds) ||
    writtenFresh(node.leaseWrittenAt, readAt, graceSeconds) ||
    fresh(node.lastHeartbeat, readAt, graceSeconds)
  );
}

/** No Lease and no heartbeat its kubelet posted: never seen alive. */
const neverSeenAlive = (node: ObservedNode): boolean =>
  node.leaseRenewTime === null &&
  (node.lastHeartbeat === null || node.readyReason === 'NodeStatusNeverUpdated');

const sameTaint = (a: TaintSnapshot, b: TaintSnapshot): boolean =>
  a.key === b.key && a.value === b.value && a.effect === b.effect && a.timeAdded === b.timeAdded;

/** The node's out-of-service taints: the fencer's (equal to its record's) and everyone else's. */
function taintsOf(node: ObservedNode): { ours: TaintSnapshot | null; others: TaintSnapshot[] } {
  const oos = node.outOfServiceTaints.filter((x) => x.key === OOS_KEY);
  const record = node.fenceRecord;
  const ours = record ? (oos.find((x) => sameTaint(x, record.taint)) ?? null) : null;
  return { ours, others: oos.filter((x) => x !== ours) };
}

/** Whether the node's own signals corroborate or contradict the machine. */
function identity(observation: Observation): { agrees: boolean; contradicts: boolean } | null {
  const node = observation.node;
  const instance = observation.instance;
  if (node === null || !instance?.resolved || !instance.identity.ok) return null;
  const machine = instance.identity.value;
  const id = instance.ref.instanceId;
  let agrees = false;
  let contradicts = false;
  const csiIds = [
    ...node.csiNodeIds.filter((c) => INSTANCE_KEYED_DRIVERS.has(c.driver)).map((c) => c.nodeId),
    ...observation.workload.volumeAttachments
      .filter((va) => va.attacher !== null && INSTANCE_KEYED_DRIVERS.has(va.attacher) && va.csiNodeId)
      .map((va) => va.csiNodeId ?? ''),
  ];
  for (const csiId of csiIds) {
    if (csiId === id) agrees = true;
    else contradicts = true;
  }
  if (machine !== null && machine.privateIps.length > 0) {
    for (const a of node.addresses.filter((x) => x.type === 'InternalIP')) {
      if (machine.privateIps.includes(a.address)) agrees = true;
      else contradicts = true;
    }
  }
  const names = new Set((machine?.hostnames ?? []).map((h) => h.toLowerCase()));
  if (node.addresses.some((a) => a.type !== 'InternalIP' && names.has(a.address.toLowerCase())))
    agrees = true;
  return { agrees, contradicts };
}

export function exceedsUnhealthy(observation: Observation, request: FenceRequest): boolean {
  const { maxUnhealthyNodes, maxUnhealthyFraction } = request.limits;
  const count = new Set([...observation.cluster.unhealthyNodes, NODE]).size;
  return (
    count > maxUnhealthyNodes || (count > 1 && count / observation.cluster.totalNodes > maxUnhealthyFraction)
  );
}

export function exceedsInFlight(observation: Observation): boolean {
  const others = new Set(observation.cluster.fencingsInFlight.filter((n) => n !== NODE));
  return others.size >= observation.cluster.maxInFlight;
}

const owned = (observation: Observation): boolean => {
  const instance = observation.instance;
  return instance?.resolved === true && instance.ownership.ok && instance.ownership.value.owned;
};

/** Rules 1 and 3: the provider no longer knows the machine and reports it gone (not found). */
const goneFromProvider = (observation: Observation): boolean => {
  const instance = observation.instance;
  return (
    instance?.resolved === true &&
    instance.ownership.ok &&
    !instance.ownership.value.owned &&
    instance.ownership.value.reason === 'not-found' &&
    instance.power.ok &&
    instance.power.value.state === 'not-found'
  );
};

/** Which path releases volumes: the legacy one on servers known to predate 1.26, else out-of-service. */
const legacyPath = (request: FenceRequest, serverMinor: number | null): boolean =>
  request.strategy === 'legacy' || (request.strategy === 'auto' && serverMinor !== null && serverMinor < 26);

/** Ceph's `osd_client_watch_timeout` default: an RBD image's watch outlives its client this long. */
const WATCH_TIMEOUT_MS = 30_000;

/** The node's blocklist as listed in this observation, when the storage cluster answered. */
/**
 * Whether a storage fence of this observation would blocklist an entry no fence may (SAFETY.md rule 6):
 * loopback, the unspecified address, or wider than /16 (IPv6 /64). Read from the text, as Ceph would.
 */
function blocklistsTheUnfenceable(observation: Observation): boolean {
  const storage = observation.storage;
  if (!storage) return false;
  const entries = storage.blocklist.ok
    ? storage.blocklist.value.expected.map((e) => e.entry)
    : [...storage.addresses, ...storage.declared];
  return entries.some((entry) => {
    const [ip = '', prefix] = entry.replace(/:0\/0$/, '').split('/');
    const v6 = ip.includes(':');
    const width = prefix === undefined ? (v6 ? 128 : 32) : Number(prefix);
    return ip.startsWith('127.') || ip === '::1' || ip === '0.0.0.0' || ip === '::' || width < (v6 ? 64 : 16);
  });
}

const blocklistOf = (observation: Observation) =>
  observation.storage?.blocklist.ok ? observation.storage.blocklist.value : null;

/**
 * Which proofs the contract asks of this node's volumes (SAFETY.md rule 1, per volume). An image its
 * kubelet last reported in use is held, attached or not: its client may still be connected. Both proofs
 * where both exist: a node whose machine a provider resolves needs it off even when storage-fenced.
 */
function proofsNeeded(observation: Observation): { machine: boolean; storage: boolean; watch: boolean } {
  const vas = observation.workload.volumeAttachments;
  const reported = observation.workload.imagesInUse?.length ?? 0;
  // An image of a storage cluster the fencer does not reach is, for the contract, an image no fencer serves.
  const foreign =
    vas.filter((va) => va.image && va.unservedCluster !== undefined).length +
    (observation.workload.unservedImagesInUse?.length ?? 0);
  const fenceable = vas.filter((va) => va.image && va.unservedCluster === undefined).length + reported;
  // The provider says terminated and Ceph shows no one holding the images: a blocklist would reach only
  // the address's next owner.
  const instance = observation.instance;
  const terminated =
    instance?.resolved === true && instance.power.ok && instance.power.value.state === 'terminated';
  const holders = observation.storage?.holders;
  const unheld =
    holders?.ok === true &&
    holders.value.images.length > 0 &&
    holders.value.holders.length === 0 &&
    reported === 0;
  const storage = fenceable > 0 && observation.storage !== null && !(terminated && unheld);
  const hasMachine = observation.instance?.resolved === true;
  const watch = foreign > 0 || (fenceable > 0 && !storage);
  return {
    machine: vas.some((va) => !va.image) || !storage || hasMachine || watch,
    storage,
    watch,
  };
}

/** Checks one fence run, step by step. */
export class FenceOracle {
  private decidedAt: number | null = null;
  private proofSeen = false;
  private proofAt: number | null = null;
  private storageProofSeen = false;
  /** A release (taint, pod or VolumeAttachment deletion) was decided: the run's entries must stay. */
  private released = false;
  /** Blocklist entries listed when the run committed: someone else's, never the run's to lift. */
  private listedBefore: ReadonlySet<string> = new Set();
  private needs: { machine: boolean; storage: boolean; watch: boolean } | null = null;
  /** The node (uid) and machine the run committed to: it acts on nothing else. */
  private target: { readonly uid: string; readonly instanceId: string } | null = null;

  constructor(
    private readonly request: FenceRequest,
    private readonly serverMinor: number | null,
    private readonly controlPlane: boolean,
  ) {}

  /** Throws on the first broken rule. */
  check(observation: Observation, before: RunHistory, decision: Decision): void {
    const fail = (rule: string): never => {
      throw new Error(
        `${rule}\n decision: ${JSON.stringify(decision, null, 1)}\n observation: ${JSON.stringify(observation)}`,
      );
    };
    const power = powerOf(observation);
    const node = observation.node;

    if (decision.rule === 'no-rule-decided') fail('the table was not exhaustive');
    if (decision.done !== ENDS.has(decision.phase)) fail('done must match the phase');
    if ((decision.phase === 'Refused' || decision.phase === 'Failed') && decision.reason === null)
      fail('rule 9: a refusal or failure without a reason code');

    const proofBefore = this.proofSeen;
    const committedNow = before.decidedToFenceAt === null && decision.history.decidedToFenceAt !== null;
    const aboutTarget = power !== null && this.target !== null && power.instanceId === this.target.instanceId;
    if (committedNow) this.checkCommitment(observation, decision, fail);
    else if (this.decidedAt !== null && aboutTarget && power !== null && OFF.has(power.state)) {
      if (ms(power.observedAt) > this.decidedAt && !this.proofSeen) {
        this.proofSeen = true;
        this.proofAt = ms(power.observedAt);
      }
    }
    const listed = blocklistOf(observation);
    if (
      !committedNow &&
      this.decidedAt !== null &&
      listed?.confirmed &&
      ms(listed.observedAt) > this.decidedAt
    )
      this.storageProofSeen = true;

    // Rule 2: once committed, a restart (new launch, or running again after the proof) ends the run.
    if (power !== null && aboutTarget && this.decidedAt !== null && !committedNow) {
      const relaunched = power.launchTime !== undefined && ms(power.launchTime) > this.decidedAt;
      const runningAfterProof = proofBefore && STARTED.has(power.state);
      const unwinding = decision.action?.kind === 'storage-lift';
      if ((relaunched || runningAfterProof) && !decision.done && !unwinding)
        fail('did not stop after the instance was started again');
    }
    const proof = decision.history.proofOfOff;
    if (proof !== null && (!OFF.has(proof.state) || proof.instanceId !== this.target?.instanceId))
      fail('history holds a proof that is not off, or not about the target');

    if (decision.phase === 'Fenced') this.checkTruthfulEnd(observation, fail);
    this.checkNoHopelessWait(observation, decision, fail);

    const action = decision.action;
    if (action === null) return;
    if (action.kind === 'storage-lift') {
      this.checkUnwind(action.entries, fail);
      return;
    }
    this.checkAnyAction(observation, action, fail);
    if (action.kind === 'power-off') {
      if (this.request.dryRun !== action.dryRun) fail('power-off dry-run flag differs from the request');
      if (exceedsUnhealthy(observation, this.request)) fail('power-off beyond the unhealthy limit');
      if (power === null || OFF.has(power.state) || power.state === 'unknown')
        fail('power-off of an instance already off or unobserved');
    }
    if (RELEASES.has(action.kind)) {
      this.released = true;
      this.checkRelease(observation, decision, fail);
    }
    if (action.kind === 'taint' && node !== null) this.checkTaint(node, action, fail);
    if (action.kind === 'clear-fence-record') {
      if (this.request.dryRun) fail('a dry run cleared a record');
      if (node === null || node.fenceRecord === null || taintsOf(node).ours !== null)
        fail('cleared a fence record whose taint is still there');
    }
    if (action.kind === 'delete-volume-attachments') {
      if (this.request.strategy === 'out-of-service')
        fail('VolumeAttachment deleted under the out-of-service strategy');
      if (this.serverMinor === null || this.serverMinor >= 26)
        fail('VolumeAttachment deleted on a server >= 1.26');
    }
    if (action.kind === 'remove-taint') fail('a fence run removed a taint');
  }

  /** Rules 2, 3, 4, 8 at the moment the run commits. */
  private checkCommitment(observation: Observation, decision: Decision, fail: (rule: string) => never): void {
    const power = powerOf(observation);
    const node = observation.node;
    const decidedAt = ms(decision.history.decidedToFenceAt ?? '');
    if (decidedAt < ms(observation.observedAt) || (power !== null && decidedAt < ms(power.observedAt)))
      fail('decision backdated');
    if (this.request.dryRun) fail('a dry run committed to fencing');
    if (exceedsUnhealthy(observation, this.request) || exceedsInFlight(observation))
      fail('committed beyond blast radius');
    if (node === null) fail('committed without a node');
    if (node && looksAlive(node, this.request.limits.leaseGraceSeconds)) fail('committed on a live node');
    if (node && neverSeenAlive(node) && !(power && OFF.has(power.state)))
      fail('committed on a node never seen alive');
    const needs = proofsNeeded(observation);
    const instance = observation.instance;
    if (instance?.resolved) {
      const id = identity(observation);
      if (id === null || id.contradicts || !id.agrees)
        fail('committed without independent proof of identity');
    } else if (needs.machine) fail('committed to power off a machine it cannot name');
    if (instance?.resolved && instance.otherNodes.length > 0)
      fail('committed while another Node names the machine');
    if (needs.storage && (observation.storage?.otherNodesSharingAddresses.length ?? 0) > 0)
      fail('committed to blocklist addresses another Node reports');
    if (needs.storage && observation.storage?.declaredError)
      fail('committed to a storage fence of a node whose storage-addresses annotation is malformed');
    if (needs.storage && observation.storage?.conflicts.some((c) => c.kind === 'storage-daemon'))
      fail("committed to blocklist a storage daemon's address");
    if (needs.storage && blocklistsTheUnfenceable(observation))
      fail('committed to blocklist a loopback, unspecified or too wide entry');
    if (needs.storage && observation.storage?.holders?.ok === false)
      fail('rule 1: committed to a storage fence while the storage witness could not be read');
    if (needs.storage && !needs.machine && observation.storage?.holders === undefined)
      fail("rules 1 and 2: committed to a blocklist-only fence without the storage cluster's witness");
    this.decidedAt = decidedAt;
    this.needs = needs;
    this.listedBefore = new Set(blocklistOf(observation)?.found.map((e) => e.entry) ?? []);
    if (node) this.target = { uid: node.uid, instanceId: instance?.resolved ? instance.ref.instanceId : '' };
  }

  /**
   * A fence run lifts blocklist entries only to unwind before it ends: never after anything was
   * released (the entries are then what keeps the zombie out), never in a dry run, and never an entry
   * that was listed before it committed (someone else's).
   */
  private checkUnwind(entries: readonly string[], fail: (rule: string) => never): void {
    if (this.request.dryRun) fail('a dry run lifted blocklist entries');
    if (this.decidedAt === null) fail('lifted blocklist entries before the run committed');
    if (this.released) fail('rule 1: lifted blocklist entries after a release');
    if (entries.some((e) => this.listedBefore.has(e)))
      fail('lifted an entry listed before the run committed');
  }

  /** Rules 2, 3, 4: no action at all on a live, opted-out, forbidden, unowned or mistaken node. */
  private checkAnyAction(observation: Observation, action: Action, fail: (rule: string) => never): void {
    const node = observation.node;
    const power = powerOf(observation);
    const providerDryRun = (action.kind === 'power-off' || action.kind === 'storage-fence') && action.dryRun;
    if (this.request.dryRun && !providerDryRun) fail('rule 8: a dry run asked for a real action');
    if (node === null) {
      fail('acted on a missing node');
      return;
    }
    if (looksAlive(node, this.request.limits.leaseGraceSeconds))
      fail('acted on a live node (Ready=True or a Lease/heartbeat fresh when read)');
    if (node.optedOut) fail('acted on an opted-out node');
    if (this.controlPlane && !this.request.limits.allowControlPlane) fail('acted on a control-plane node');
    const instance = observation.instance;
    // A machine the node names must be the cluster's; a bare-metal node, fenced at the storage layer
    // only, names none.
    // Once committed, the very machine the run proved the cluster's may be gone: that is off, not foreign.
    const goneAfterCommit = this.decidedAt !== null && this.target !== null && goneFromProvider(observation);
    if (instance?.resolved && !owned(observation) && !goneAfterCommit)
      fail('acted without ownership verified in this observation');
    // What the run committed to, not what this observation alone calls for: Kubernetes may have cleared
    // the node's image attachments since.
    const needs = this.needs ?? proofsNeeded(observation);
    if (!instance?.resolved && needs.machine && action.kind !== 'storage-fence')
      fail('acted on a node whose machine is unknown');
    if (action.kind === 'storage-fence' && !action.dryRun && !needs.storage)
      fail(
        "blocklisted a node whose proofs need no storage fence (a terminated machine whose images Ceph shows no one holding: the entry would reach the address's next owner)",
      );
    const ref = instance?.resolved ? instance.ref.instanceId : '';
    if (power !== null && power.instanceId !== ref) fail('acted on evidence about another instance');
    const target = this.target;
    if (target !== null && (node.uid !== target.uid || ref !== target.instanceId))
      fail('rule 3 and 7: acted on a node or machine other than the one the run committed to');
    if (action.kind === 'storage-fence' && (observation.storage?.otherNodesSharingAddresses.length ?? 0) > 0)
      fail('blocklisted addresses another Node reports');
    if (action.kind === 'storage-fence' && observation.storage?.declaredError)
      fail('blocklisted by a malformed storage-addresses annotation');
    if (
      action.kind === 'storage-fence' &&
      observation.storage?.conflicts.some((c) => c.kind === 'storage-daemon')
    )
      fail("blocklisted a storage daemon's address");
    if (action.kind === 'storage-fence' && blocklistsTheUnfenceable(observation))
      fail('blocklisted a loopback, unspecified or too wide entry');
    if (instance?.resolved && instance.otherNodes.length > 0)
      fail('acted while another Node names the machine');
    if (identity(observation)?.contradicts) fail("acted though the node's own signals name another machine");
  }

  /**
   * Rule 1, per volume: a disk needs its machine proven off after the decision and off right now; an
   * RBD image needs the node's blocklist confirmed after the decision and listed right now, or, without
   * a storage fencer, its machine off for longer than the image's watch can live.
   */
  private checkRelease(observation: Observation, decision: Decision, fail: (rule: string) => never): void {
    const power = powerOf(observation);
    const needs = this.needs;
    if (this.request.dryRun) fail('a dry run released something');
    // Ceph's own witness, where there is one: nothing released while it is unreadable, or while it shows a
    // watcher of the node's images at an address the fence covers.
    const holders = observation.storage?.holders;
    if (needs?.storage && holders !== undefined) {
      if (!holders.ok) fail('rule 1: released while the storage witness could not be read');
      const entries = blocklistOf(observation)?.expected.map((e) => e.entry) ?? [];
      if (holders.ok && holdersCoveredBy(holders.value.holders, entries).length > 0)
        fail('rule 1: released while Ceph shows a watcher at a fenced address');
    }
    if (this.decidedAt === null || needs === null) {
      fail('release before the run committed');
      return;
    }
    if (needs.machine) {
      if (!this.proofSeen) fail('release without proof of off observed after the decision');
      const proof = decision.history.proofOfOff;
      if (proof === null || ms(proof.observedAt) <= ms(decision.history.decidedToFenceAt ?? ''))
        fail('history proof missing');
      if (power === null || !OFF.has(power.state))
        fail('release while this observation does not show the instance off');
      if (power?.launchTime !== undefined && ms(power.launchTime) > this.decidedAt)
        fail('release after a restart');
    }
    if (
      needs.watch &&
      (this.proofAt === null || ms(observation.observedAt) - this.proofAt < WATCH_TIMEOUT_MS)
    )
      fail('released an RBD image before its old watch could have expired');
    if (needs.storage) {
      if (!this.storageProofSeen) fail('release without the blocklist confirmed after the decision');
      if (!blocklistOf(observation)?.confirmed)
        fail('release while this observation does not list the blocklist');
    }
  }

  /** Rule 6: the taint written is exact and recorded; another's out-of-service taint is never claimed. */
  private checkTaint(
    node: ObservedNode,
    action: Extract<Action, { kind: 'taint' }>,
    fail: (rule: string) => never,
  ): void {
    const { ours, others } = taintsOf(node);
    if (!sameTaint(action.taint, action.record.taint)) fail('the record does not name the taint written');
    if (action.taint.timeAdded === null) fail('a taint without timeAdded cannot be told from another');
    if (ours !== null && !sameTaint(action.taint, ours)) fail('re-recorded a taint other than our own');
    if (ours === null && others.some((x) => x.effect === 'NoExecute'))
      fail('claimed a taint someone else added');
  }

  /** Truthful report: Fenced only when nothing holds a volume on the node any more. */
  private checkTruthfulEnd(observation: Observation, fail: (rule: string) => never): void {
    const { pods, volumeAttachments } = observation.workload;
    if (pods.some((p) => p.claimNames.length > 0 || p.terminating))
      fail('Fenced while a pod still holds a volume');
    if (volumeAttachments.length > 0) fail('Fenced while VolumeAttachments remain');
    if (this.needs?.machine === false) return;
    const instance = observation.instance;
    const disks = instance?.resolved ? instance.disks : null;
    if (!disks?.ok) fail('Fenced without reading the disks');
    if (disks?.ok && disks.value.some((d) => !d.root && d.state !== 'detached'))
      fail('Fenced with disks attached');
  }

  /** A pod that tolerates the taint and holds a volume is named at once, not waited on until the deadline. */
  private checkNoHopelessWait(
    observation: Observation,
    decision: Decision,
    fail: (rule: string) => never,
  ): void {
    // A wait with a reason (a provider error, say) waits on that, not on the pod.
    if (decision.done || decision.action !== null || decision.phase !== 'Drain' || decision.reason !== null)
      return;
    if (this.request.forceDeleteTolerating || legacyPath(this.request, this.serverMinor)) return;
    const power = powerOf(observation);
    const machineOk =
      this.needs?.machine === false || (this.proofSeen && power !== null && OFF.has(power.state));
    const storageOk = !this.needs?.storage || (this.storageProofSeen && blocklistOf(observation)?.confirmed);
    if (!machineOk || !storageOk) return;
    // Without a storage fence, an image's old watch may outlive the power-off by Ceph's watch timeout:
    // waiting that out (with a margin, at most twice the timeout) is not waiting on the pod.
    const watchAlive =
      this.needs?.watch === true &&
      (this.proofAt === null || ms(observation.observedAt) - this.proofAt < 2 * WATCH_TIMEOUT_MS);
    if (watchAlive) return;
    const stuck = observation.workload.pods.some(
      (p) => p.toleratesOutOfService && p.claimNames.length > 0 && !p.terminating,
    );
    if (stuck) fail('waited in Drain on a pod that tolerates the taint and can never leave');
  }
}
