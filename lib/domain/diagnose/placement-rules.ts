/** Blocker rules about where the volume can go: Local PVs, zones, attach failures and limits. */
import { NextActionKind } from '../sweep/finding.js';
import { action, type BlockerRule, targetNode } from './blocker-kit.js';
import { SignalKind } from './events.js';

export const localPv: BlockerRule = {
  id: 'local-pv-node-down',
  check(_facts, volume) {
    if (!volume.pv?.nodeBound || volume.localNodeReady !== false) return null;
    const nodes = volume.pv.nodeNames?.join(', ') || 'its node';
    return {
      blocker: {
        code: 'LocalVolumeNodeDown',
        summary: `Local PV ${volume.pv.name} is pinned to ${nodes}, which is not Ready`,
        objects: [volume.pv.name, nodes],
      },
      nextAction: action(
        NextActionKind.Investigate,
        `Bring ${nodes} back: a Local PV never moves, so its pod waits for that node (fencing does not help).`,
      ),
    };
  },
};

export const zoneDown: BlockerRule = {
  id: 'zone-without-nodes',
  check(facts, volume) {
    const conflict = facts.signals.some((s) => s.kind === SignalKind.VolumeNodeAffinityConflict);
    if (volume.zoneHasReadyNode !== false && !conflict) return null;
    const zones = volume.pv?.zones.join(', ') || 'its zone';
    return {
      blocker: {
        code: 'NoHealthyNodeInPvZone',
        summary: `PV ${volume.pv?.name ?? '?'} lives in ${zones}, where no Ready, schedulable node can take the pod`,
        objects: [volume.pv?.name ?? '', zones],
      },
      nextAction: action(
        NextActionKind.RestoreZone,
        `Bring a node in ${zones} back or add one; a zonal disk never leaves its zone, so otherwise only application-level replication helps.`,
      ),
    };
  },
};

export const attachFailing: BlockerRule = {
  id: 'target-attach-failing',
  check(facts, volume) {
    const a = volume.attachments.find(
      (x) => x.nodeName === targetNode(facts) && !x.attached && x.attachError,
    );
    const limit = facts.signals.some((s) => s.kind === SignalKind.ExceedMaxVolumeCount);
    if (!a && !limit) return null;
    return {
      blocker: a
        ? {
            code: 'AttachFailing',
            summary: `Attaching to ${a.nodeName} fails: ${a.attachError}`,
            objects: [a.name, a.nodeName],
          }
        : { code: 'NoAttachCapacity', summary: 'Every candidate node is at its attach limit', objects: [] },
      nextAction: action(
        NextActionKind.Investigate,
        'A downstream blocker, not a fencing case: read the attach error and the CSI controller logs, or free attach slots.',
      ),
    };
  },
};
