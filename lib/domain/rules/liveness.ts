/**
 * Never fence a live node (SAFETY.md rule 2): checked on every step, so the re-check right before the
 * taint is the same check, made on that step's fresh observation. After the decision to fence, a sign of
 * life means the node came back, and the run stops. Ages are measured at the moment the Node and Lease
 * were read (`readAt`), never at the end of a step that then spent seconds on the provider.
 */
import { Compliant, halt, NotApplicable } from '../decision.js';
import { Phase } from '../phases.js';
import { Reason } from '../reasons.js';
import { instant, relativeTo } from '../time.js';
import { committed, currentlyOff, type FenceContext, type FenceRule } from './context.js';

const livenessReason = (ctx: FenceContext, before: Reason): Reason =>
  committed(ctx) ? Reason.NodeCameBack : before;

/** When the node's liveness signals were read, in ms. */
const readAt = (ctx: FenceContext): number => instant(ctx.node?.readAt ?? '', 'node.readAt');

/** Within the grace period when read, or in the future (clock skew): either way, not proof of silence. */
const isFresh = (ctx: FenceContext, iso: string | null, field: string): boolean =>
  iso !== null && readAt(ctx) - instant(iso, field) < ctx.request.limits.leaseGraceSeconds * 1000;

export const nodeNotReady: FenceRule = {
  id: 'node-not-ready',
  contract: 'SAFETY.md rule 2: halt when the node is Ready=True',
  check: (ctx) => {
    if (ctx.node === null) return NotApplicable;
    return ctx.node.ready === 'True'
      ? halt(Phase.Refused, livenessReason(ctx, Reason.NodeReady), [`node ${ctx.node.name} is Ready=True`])
      : Compliant;
  },
};

/**
 * The API server stamps a write to the second, truncated: one stored at 12:00:00.9 reads 12:00:00. Taken
 * as up to a second later than it reads, so that the truncation can never make a write look older.
 */
const WRITE_STAMP_RESOLUTION_MS = 999;

export const leaseStale: FenceRule = {
  id: 'lease-stale',
  contract:
    'SAFETY.md rule 2: halt when the Lease was renewed, or written on the API server’s clock, within the grace period',
  check: (ctx) => {
    if (ctx.node === null) return NotApplicable;
    const { leaseRenewTime, leaseWrittenAt, readAt: readIso } = ctx.node;
    const grace = ctx.request.limits.leaseGraceSeconds;
    if (isFresh(ctx, leaseRenewTime, 'leaseRenewTime')) {
      const when = relativeTo(instant(leaseRenewTime ?? '', 'leaseRenewTime'), readAt(ctx));
      return halt(Phase.Refused, livenessReason(ctx, Reason.LeaseFresh), [
        `lease renewed ${when} it was read at ${readIso}, grace ${grace}s`,
      ]);
    }
    // A kubelet whose clock runs behind renews a Lease whose renewTime looks old: the server's own stamp
    // on the write says it is alive.
    if (leaseWrittenAt === null) return Compliant;
    const stamped = instant(leaseWrittenAt, 'leaseWrittenAt');
    if (readAt(ctx) - (stamped + WRITE_STAMP_RESOLUTION_MS) >= grace * 1000) return Compliant;
    const renewed = leaseRenewTime === null ? 'no renewTime' : `its renewTime ${leaseRenewTime}`;
    return halt(Phase.Refused, livenessReason(ctx, Reason.LeaseFresh), [
      `lease written ${relativeTo(stamped, readAt(ctx))} it was read at ${readIso} by the API server's clock (${renewed}: the writer's clock runs behind), grace ${grace}s`,
    ]);
  },
};

export const heartbeatStale: FenceRule = {
  id: 'heartbeat-stale',
  contract: 'SAFETY.md rule 2: a fresh status heartbeat is a live kubelet too',
  check: (ctx) => {
    if (ctx.node === null) return NotApplicable;
    if (!isFresh(ctx, ctx.node.lastHeartbeat, 'lastHeartbeat')) return Compliant;
    const when = relativeTo(instant(ctx.node.lastHeartbeat ?? '', 'lastHeartbeat'), readAt(ctx));
    return halt(Phase.Refused, livenessReason(ctx, Reason.HeartbeatFresh), [
      `status heartbeat ${when} it was read at ${ctx.node.readAt}, grace ${ctx.request.limits.leaseGraceSeconds}s`,
    ]);
  },
};

/** The node-lifecycle controller's reason for a Node whose kubelet never posted a status. */
const NEVER_UPDATED = 'NodeStatusNeverUpdated';

export const seenAlive: FenceRule = {
  id: 'seen-alive',
  contract:
    'SAFETY.md rule 2: a node never seen alive is not proven silent (absence of evidence is not evidence)',
  check: (ctx) => {
    if (ctx.node === null || committed(ctx)) return NotApplicable;
    const { leaseRenewTime, lastHeartbeat, readyReason } = ctx.node;
    const kubeletHeartbeat = lastHeartbeat !== null && readyReason !== NEVER_UPDATED;
    if (leaseRenewTime !== null || kubeletHeartbeat) return Compliant;
    // The one signal that proves silence without a kubelet's history: the machine is already off.
    if (currentlyOff(ctx)) return Compliant;
    return halt(Phase.Refused, Reason.NeverSeenAlive, [
      `node ${ctx.node.name} has no Lease and ${lastHeartbeat === null ? 'no heartbeat' : 'a Ready condition its kubelet never posted'}`,
    ]);
  },
};
