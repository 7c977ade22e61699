/**
 * Blocker rules about a network image's lock (Ceph RBD): the volume is attached where the pod needs it,
 * but the previous node's client still watches the image, so ceph-csi's NodeStage refuses it with
 * `still being used`. Only blocklisting that client frees the image (SAFETY.md rule 1: storage fencing); the
 * out-of-service taint and deleting VolumeAttachments do nothing for it.
 */
import { isNetworkImageDriver } from '../blocklist.js';
import { NextActionKind } from '../sweep/finding.js';
import { action, type BlockerRule, targetNode } from './blocker-kit.js';
import { SignalKind } from './events.js';

export const imageStillWatched: BlockerRule = {
  id: 'rbd-image-still-watched',
  check(facts, volume) {
    const pv = volume.pv;
    if (!pv || !isNetworkImageDriver(pv.driver)) return null;
    const signal = facts.signals.find(
      (s) => s.kind === SignalKind.RbdImageStillUsed && (s.pv === undefined || s.pv === pv.name),
    );
    if (!signal) return null;
    const image = signal.image ?? '<pool>/<image>';
    const where = targetNode(facts) ? ` on node ${targetNode(facts)}` : '';
    return {
      blocker: {
        code: 'RbdImageStillWatched',
        summary: `RBD image ${image} (PV ${pv.name}) cannot be staged${where}: another client still watches it (\`still being used\`), the previous node's librbd or krbd client, still connected to Ceph and perhaps still writing`,
        objects: [pv.name, image],
      },
      nextAction: action(
        NextActionKind.Investigate,
        `Find the holder's address in the image's watchers (\`watcher=<ip>:0/<nonce>\`; the ceph-mgr restful API cannot list them, the rbd CLI can). If it is a node that is not Ready, blocklist that address at the storage layer (RUNBOOK.md, "Fencing an RBD node by hand when the fencer is down": ceph osd blocklist range add <ip>/32 604800). Never on a live node's address. The out-of-service taint alone does not free the image.`,
        `rbd status ${image}`,
      ),
    };
  },
};
