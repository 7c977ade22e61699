/**
 * Blocker rules about who holds the volume: a pod stuck on a dead node, or an attachment on a deleted,
 * NotReady or live node. Each suggests only what SAFETY.md allows for that case.
 */
import { provenOff } from '../sweep/cross-check.js';
import { NextActionKind } from '../sweep/finding.js';
import {
  action,
  type BlockerRule,
  type BlockerVerdict,
  holders,
  instanceState,
  podName,
} from './blocker-kit.js';
import type { DiagnosisFacts } from './model.js';

/** Pod-level: a pod stuck Terminating on a dead node holds its volumes whatever they are. */
export const podStuckTerminating = {
  id: 'pod-terminating-on-notready-node',
  check(facts: DiagnosisFacts): BlockerVerdict | null {
    const { pod, podNode } = facts;
    if (!pod?.terminating || !podNode?.exists || podNode.ready === 'True' || podNode.outOfService !== 'none')
      return null;
    return {
      blocker: {
        code: 'PodTerminatingOnNotReadyNode',
        summary: `Pod ${podName(pod)} is Terminating on node ${podNode.name}, which is not Ready: no kubelet will confirm the deletion, so its volume stays and no replacement starts`,
        objects: [podName(pod), podNode.name],
      },
      nextAction: action(
        NextActionKind.FenceNode,
        `Fence ${podNode.name}: once EC2 proves its instance off, the out-of-service taint makes PodGC force-delete the pod and the volume is released.`,
        `fencer fence ${podNode.name}`,
      ),
    };
  },
};

export const holderOnGoneNode: BlockerRule = {
  id: 'holder-on-deleted-node',
  check(facts, volume) {
    const a = holders(facts, volume).find((h) => !h.node.exists);
    if (!a) return null;
    return {
      blocker: {
        code: 'VolumeAttachmentNodeMissing',
        summary: `VolumeAttachment ${a.name} still holds the volume for node ${a.nodeName}, which no longer exists (${instanceState(a)})`,
        objects: [a.name, a.nodeName],
      },
      nextAction: action(
        NextActionKind.DeleteVolumeAttachment,
        'The out-of-service taint cannot help a deleted node. Let the sweep delete the VolumeAttachment: it does so only when EC2 proves the disk is not attached to a machine that is still on.',
        'fencer sweep --remediate',
      ),
    };
  },
};

export const holderOnDeadNode: BlockerRule = {
  id: 'holder-on-notready-node',
  check(facts, volume) {
    const a = holders(facts, volume).find((h) => h.node.exists && h.node.ready !== 'True');
    if (!a?.node.exists) return null;
    const objects = [a.name, a.nodeName, ...(a.instance ? [a.instance.instanceId] : [])];
    if (a.node.outOfService !== 'none') {
      const stuck = volume.podsUsing.filter((p) => p.nodeName === a.nodeName);
      const waitingOn = stuck.length
        ? `pod(s) ${stuck.map(podName).join(', ')} still on it`
        : 'the attach-detach controller to detach';
      return {
        blocker: {
          code: 'FencedNodeStillHolding',
          summary: `Node ${a.nodeName} is fenced (out-of-service) but VolumeAttachment ${a.name} is still attached; waiting for ${waitingOn}`,
          objects,
        },
        nextAction: action(
          NextActionKind.Wait,
          'Kubernetes is releasing it: PodGC force-deletes terminating pods and the volume is force-detached. Watch it clear.',
          `fencer status ${a.nodeName}`,
        ),
      };
    }
    const off = provenOff(a.instance ?? undefined);
    return {
      blocker: {
        code: 'VolumeHeldByNotReadyNode',
        summary: `VolumeAttachment ${a.name} holds the volume on node ${a.nodeName}, which is ${a.node.ready === 'Unknown' ? 'unreachable (Ready=Unknown)' : `NotReady (Ready=${a.node.ready})`}; ${instanceState(a)}`,
        objects,
      },
      nextAction: action(
        NextActionKind.FenceNode,
        off
          ? `The instance is already off: fencing only confirms it and taints ${a.nodeName} out-of-service, which releases the volume.`
          : `Fence ${a.nodeName}: power its instance off through EC2 and wait for proof, then taint it out-of-service. Never force-detach from a machine that may still write.`,
        `fencer fence ${a.nodeName}`,
      ),
    };
  },
};

export const holderOnLiveNode: BlockerRule = {
  id: 'holder-on-ready-node',
  check(facts, volume) {
    const a = holders(facts, volume).find((h) => h.node.exists && h.node.ready === 'True');
    if (!a) return null;
    // A live node holding a volume nobody else wants is simply in use: not a blocker.
    const wanted = facts.pod !== null || volume.podsUsing.some((p) => p.nodeName !== a.nodeName);
    if (!wanted) return null;
    const users = volume.podsUsing.filter((p) => p.nodeName === a.nodeName);
    if (users.length > 0) {
      return {
        blocker: {
          code: 'VolumeInUseOnLiveNode',
          summary: `The volume is in use by ${users.map(podName).join(', ')} on node ${a.nodeName}, which is Ready: ReadWriteOnce allows one node`,
          objects: [a.name, a.nodeName, ...users.map(podName)],
        },
        nextAction: action(
          NextActionKind.Investigate,
          `Node ${a.nodeName} is alive, so it is never fenced. Stop or move the pod that uses the volume there (it unmounts cleanly), or scale the workload down.`,
        ),
      };
    }
    return {
      blocker: {
        code: 'VolumeStuckOnLiveNode',
        summary: `VolumeAttachment ${a.name} keeps the volume on Ready node ${a.nodeName} although no pod there uses it: the kubelet or CSI node plugin has not unmounted it`,
        objects: [a.name, a.nodeName],
      },
      nextAction: action(
        NextActionKind.Investigate,
        `Node ${a.nodeName} is Ready, so it is not a fencing case: check its kubelet and CSI node plugin (volumesInUse), which must unmount first.`,
      ),
    };
  },
};
