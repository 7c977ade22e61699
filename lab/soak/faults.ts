/**
 * What each planned fault does to the lab, as an operator's bad day would: nodes cut off and healed,
 * machines crashing and powered on again, a throttling provider, a stop stuck in `stopping`, an event
 * delivered again, an operator's `fencer fence` racing the automated run and `fencer unfence` after a
 * node is back, someone else's maintenance taint, the Ceph mgr or the kube-apiserver not answering.
 * Each action is written to the truth log (with the schedule's step, so a violation names the step to
 * replay) before it can be seen, and after it succeeded when it might not.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { CoreV1Api, type V1Taint } from '@kubernetes/client-node';
import { eventually } from '../kube-wait.js';
import type { Lab } from '../lab.js';
import { MACHINE_OFF, OUT_OF_SERVICE_KEY, type RunEnd, type TruthEvent } from './records.js';
import { FaultKind, type PlannedFault } from './schedule.js';

const MAINTENANCE = 'maintenance';
/** Client nonces of someone else's blocklist entries (the fencer's own are whole addresses or ranges). */
const FOREIGN_NONCE = 4_200_000;

export interface FaultContext {
  readonly lab: Lab;
  /** Writes what the soak is about to do (or just did) to the truth log. */
  readonly truth: (event: Omit<TruthEvent, 't'>) => void;
  /** Runs the fencer CLI as an operator would (as the lab's kube-fencer user); resolves with how it ended. */
  readonly cli: (path: RunEnd['path'], node: string, args: readonly string[]) => Promise<RunEnd>;
  /** Delivers again the last state change the event bus delivered, late. */
  readonly redeliver: () => Promise<void>;
  /** The machine's state, from the cloud's emulator itself. */
  readonly instanceState: (node: string) => Promise<string>;
  /** What an operator does while `node` is down (the runbook's manual fence), until `until` (ms). */
  readonly duringIncident?: (node: string, until: number) => Promise<void>;
}

async function hasFencersTaint(lab: Lab, node: string): Promise<boolean> {
  const n = await lab.kubeConfig.makeApiClient(CoreV1Api).readNode({ name: node });
  return (n.spec?.taints ?? []).some((t) => t.key === OUT_OF_SERVICE_KEY && t.effect === 'NoExecute');
}

/** Powers the machine on again (rebooting it first when it still runs), then un-fences as an operator. */
async function powerCycle(ctx: FaultContext, fault: PlannedFault, node: string, running: boolean) {
  const { lab } = ctx;
  if (running) {
    // Fenced at the storage layer only (bare metal): the operator reboots it, as the runbook says.
    ctx.truth({ step: fault.step, action: 'reboot', node });
    await lab.crash(node);
  }
  ctx.truth({ step: fault.step, action: 'restore', node });
  await lab.restore(node);
  await eventually(
    `${node} Ready again`,
    async () => {
      const n = await lab.kubeConfig.makeApiClient(CoreV1Api).readNode({ name: node });
      return n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ? true : undefined;
    },
    { timeoutMs: 180_000 },
  ).catch(() => undefined);
  ctx.truth({ step: fault.step, action: 'unfence', node });
  await ctx.cli('unfence', node, ['unfence', node, '--wait', '3m', '--output', 'json']);
}

/**
 * The incident ends: a machine that is off (crashed, or powered off by the fencer) is powered on and
 * un-fenced; a fenced machine that still runs is rebooted first; a partitioned node nobody fenced heals.
 */
async function endIncident(ctx: FaultContext, fault: PlannedFault, node: string): Promise<void> {
  const off = MACHINE_OFF.has(await ctx.instanceState(node));
  if (off || fault.kind === FaultKind.Crash || (await hasFencersTaint(ctx.lab, node))) {
    return powerCycle(ctx, fault, node, !off && fault.kind !== FaultKind.Crash);
  }
  ctx.truth({ step: fault.step, action: 'reconnect', node });
  await ctx.lab.reconnect(node);
  // A power-off that was already on its way when the partition healed: the operator powers it on again.
  await sleep(15_000);
  if (MACHINE_OFF.has(await ctx.instanceState(node))) await powerCycle(ctx, fault, node, false);
}

async function incident(ctx: FaultContext, fault: PlannedFault, node: string): Promise<void> {
  ctx.truth({ step: fault.step, action: fault.kind === FaultKind.Crash ? 'crash' : 'cut', node });
  await (fault.kind === FaultKind.Crash ? ctx.lab.crash(node) : ctx.lab.cut(node));
  const until = Date.now() + fault.seconds * 1000;
  await Promise.all([sleep(fault.seconds * 1000), ctx.duringIncident?.(node, until)]);
  return endIncident(ctx, fault, node);
}

/** Replaces the node's taints by read-modify-write, retrying on conflicts with the fencer's own writes. */
async function editTaints(lab: Lab, node: string, edit: (taints: V1Taint[]) => V1Taint[] | null) {
  const core = lab.kubeConfig.makeApiClient(CoreV1Api);
  for (let attempt = 0; attempt < 5; attempt++) {
    const current = await core.readNode({ name: node });
    const taints = edit(current.spec?.taints ?? []);
    if (taints === null) return false;
    try {
      await core.replaceNode({ name: node, body: { ...current, spec: { ...current.spec, taints } } });
      return true;
    } catch (error) {
      if ((error as { code?: number }).code !== 409) throw error;
    }
  }
  return false;
}

const isMaintenance = (t: V1Taint) => t.key === OUT_OF_SERVICE_KEY && t.effect === 'NoSchedule';

/**
 * Someone else's out-of-service taint (NoSchedule: maintenance, which moves nothing) on any node, a
 * fenced one too, and an operator who runs `fencer unfence` on that node by mistake. The fencer must
 * leave it alone, whatever it un-fences meanwhile; the soak takes it off itself later.
 */
async function foreignTaint(ctx: FaultContext, fault: PlannedFault, node: string): Promise<void> {
  // Not on a partitioned node whose machine runs: Kubernetes would release its volumes on that taint.
  const ready = await ctx.lab.kubeConfig
    .makeApiClient(CoreV1Api)
    .readNode({ name: node })
    .then((n) => n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'));
  if (!ready && !MACHINE_OFF.has(await ctx.instanceState(node))) return;
  const timeAdded = new Date(Math.floor(Date.now() / 1000) * 1000);
  const added = await editTaints(ctx.lab, node, (taints) =>
    taints.some(isMaintenance)
      ? null
      : [...taints, { key: OUT_OF_SERVICE_KEY, value: MAINTENANCE, effect: 'NoSchedule', timeAdded }],
  ).catch(() => false);
  if (!added) return;
  ctx.truth({ step: fault.step, action: 'foreign-taint-add', node, detail: timeAdded.toISOString() });
  await ctx.cli('unfence', node, ['unfence', node, '--wait', '30s', '--output', 'json']);
  await sleep(fault.seconds * 1000);
  ctx.truth({ step: fault.step, action: 'foreign-taint-remove', node, detail: timeAdded.toISOString() });
  await editTaints(ctx.lab, node, (taints) =>
    taints.some(isMaintenance) ? taints.filter((t) => !isMaintenance(t)) : null,
  ).catch(() => false);
}

/**
 * In a Ceph world, someone else's blocklist entry for one client at the node's address, kept for the
 * fault's length and then taken off: whatever the fencer fences and lifts meanwhile, it lifts only its own.
 */
async function foreignBlocklistEntry(ctx: FaultContext, fault: PlannedFault, node: string): Promise<void> {
  const ceph = ctx.lab.ceph;
  if (!ceph) return;
  const entry = `${ceph.address(node)}:0/${FOREIGN_NONCE + fault.step}`;
  const expire = fault.seconds + 120;
  await ceph.admin.mon({ prefix: 'osd blocklist', blocklistop: 'add', addr: entry }, undefined, { expire });
  ctx.truth({ step: fault.step, action: 'foreign-blocklist-add', node, detail: entry });
  await sleep(fault.seconds * 1000);
  ctx.truth({ step: fault.step, action: 'foreign-blocklist-remove', node, detail: entry });
  await ceph.admin.mon({ prefix: 'osd blocklist', blocklistop: 'rm', addr: entry }).catch(() => undefined);
}

async function throttle(ctx: FaultContext, fault: PlannedFault): Promise<void> {
  const { lab } = ctx;
  const ms = fault.seconds * 1000;
  ctx.truth({ step: fault.step, action: 'throttle-on', detail: `${fault.seconds}s` });
  if (lab.ecs) {
    await lab.ecs.admin.injectFaults({
      action: '*',
      accessKeyId: lab.ecs.fencerKey.accessKeyId,
      status: 400,
      code: 'Throttling.User',
      message: 'Request was denied due to user flow control.',
    });
    await sleep(ms);
    await lab.ecs.admin.clearFaults();
  } else {
    lab.ec2Faults.inject({ kind: 'throttle', action: '*', forMs: ms });
    await sleep(ms);
  }
  ctx.truth({ step: fault.step, action: 'throttle-off' });
}

/** The next stop of the node's machine is answered `stopping` and kept so (EC2): the machine runs on. */
async function stuckStop(ctx: FaultContext, fault: PlannedFault): Promise<void> {
  if (ctx.lab.provider !== 'aws') return;
  const node = ctx.lab.nodes.find((n) => n.name === fault.node);
  if (!node) return;
  ctx.truth({ step: fault.step, action: 'stuck-stop', node: node.name, detail: `${fault.seconds}s` });
  const injected = ctx.lab.ec2Faults.inject({
    kind: 'stopping',
    instanceId: node.instanceId,
    stopInstances: 'hold',
  });
  await sleep(fault.seconds * 1000);
  injected.remove();
}

/** A component stops answering (SIGSTOP) for the fault's length, then goes on (SIGCONT). */
async function pause(ctx: FaultContext, fault: PlannedFault, component: RegExp, what: 'mgr' | 'apiserver') {
  const target = ctx.lab.components.find((c) => component.test(c.name));
  if (!target) return;
  ctx.truth({ step: fault.step, action: `${what}-pause`, detail: `${fault.seconds}s` });
  process.kill(target.pid, 'SIGSTOP');
  try {
    await sleep(fault.seconds * 1000);
  } finally {
    process.kill(target.pid, 'SIGCONT');
    ctx.truth({ step: fault.step, action: `${what}-resume` });
  }
}

/** Carries out one fault; resolves when it is over (the node back, the provider well again). */
export async function applyFault(ctx: FaultContext, fault: PlannedFault): Promise<void> {
  const node = fault.node;
  switch (fault.kind) {
    case FaultKind.Partition:
    case FaultKind.Crash:
      return node ? incident(ctx, fault, node) : undefined;
    case FaultKind.Throttle:
      return throttle(ctx, fault);
    case FaultKind.StuckStop:
      return stuckStop(ctx, fault);
    case FaultKind.LateEvent:
      ctx.truth({ step: fault.step, action: 'late-event' });
      return ctx.redeliver();
    case FaultKind.ManualRace:
      if (!node) return;
      ctx.truth({ step: fault.step, action: 'manual-fence', node });
      await ctx.cli('manual', node, ['fence', node, '--timeout', '4m', '--output', 'json']);
      return;
    case FaultKind.ForeignTaint:
      if (!node) return;
      await Promise.all([foreignTaint(ctx, fault, node), foreignBlocklistEntry(ctx, fault, node)]);
      return;
    case FaultKind.MgrPause:
      return pause(ctx, fault, /mgr/, 'mgr');
    case FaultKind.ApiServerPause:
      return pause(ctx, fault, /^kube-apiserver$/, 'apiserver');
  }
}
