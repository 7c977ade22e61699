/**
 * The router's cost per EC2 state change against the cluster's size: a burst of `stopped` events (one
 * every 300 ms of a fake clock, a region's scale-in) routed by one runtime (its node index kept, as a
 * warm Lambda keeps it), 95 % for instances no node runs on, 5 % for Ready nodes' instances, against
 * in-memory clusters of each size that count the objects each read would return from the API server
 * (a VolumeAttachment list returns every attachment, filtered page by page: 25 per node here, the
 * envelope's ratio). The nodes are as kubelets register them by default (attached for by the
 * attach-detach controller, which records their volumes in their status), or, second, attached for by
 * their own kubelet and reporting no volume in use, the one case the router lists VolumeAttachments
 * for. Prints, per size, reads and objects per event and the time per event.
 */

import { routeTrigger, type TriggerDeps, type TriggerSettings } from '../lib/app/triggers/index.js';
import { NodeIndex } from '../lib/app/triggers/node-index.js';
import { parseEvent } from '../lib/config/events.js';
import type { NodeView, VolumeAttachmentView } from '../lib/ports/cluster.js';
import { ec2StateChange } from '../test/unit/functions/support/aws-events.js';
import { instanceIdOf } from '../test/unit/functions/support/big-event.js';
import { FakeWorkflow, fakeDeps, node, REQUEST_DEFAULTS } from '../test/unit/functions/support/fakes.js';

const EVENTS = 400;
const VAS_PER_NODE = 25;

interface Tally {
  reads: number;
  objects: number;
}

/** How the nodes' volumes are attached: by the attach-detach controller (the default) or their kubelet. */
type Attacher = 'controller' | 'kubelet';

/**
 * A Ready node holding VAS_PER_NODE disks, its status as the attach-detach controller and its kubelet
 * leave it; or, the router's worst case, attached for by its kubelet with no volume reported in use.
 */
const readyNode = (i: number, attacher: Attacher): NodeView => {
  const disks = Array.from(
    { length: VAS_PER_NODE },
    (_, d) => `kubernetes.io/csi/ebs.csi.aws.com^vol-${i}-${d}`,
  );
  return node(`node-${i}`, `aws:///us-east-1a/${instanceIdOf(i)}`, {
    ready: 'True',
    ...(attacher === 'controller'
      ? {
          volumesInUse: disks,
          volumesAttached: disks,
          annotations: { 'volumes.kubernetes.io/controller-managed-attach-detach': 'true' },
        }
      : {}),
  });
};

/** Trigger deps over a cluster of `size` Ready nodes whose reads are counted in `tally`. */
function countedDeps(
  size: number,
  attacher: Attacher,
  tally: Tally,
  clock: { now: () => Date },
): TriggerDeps {
  const nodes: NodeView[] = Array.from({ length: size }, (_, i) => readyNode(i, attacher));
  const byName = new Map(nodes.map((n) => [n.name, n]));
  const base = fakeDeps({ nodes }, new FakeWorkflow()).deps;
  const read = <T>(objects: number, value: T): T => {
    tally.reads++;
    tally.objects += objects;
    return value;
  };
  return {
    ...base,
    clock,
    log: { info() {}, warn() {}, error() {} },
    nodeIndex: new NodeIndex(),
    cluster: {
      ...base.cluster,
      listNodeProviderIds: async () =>
        read(
          size,
          nodes.map((n) => ({ name: n.name, ...(n.providerId ? { providerId: n.providerId } : {}) })),
        ),
      getNode: async (name) => read(1, byName.get(name) ?? null),
      listVolumeAttachments: async (filter) =>
        read(
          size * VAS_PER_NODE,
          (filter?.nodeNames ?? []).flatMap((n): VolumeAttachmentView[] =>
            byName.has(n)
              ? [
                  {
                    name: `va-${n}`,
                    uid: `uid-va-${n}`,
                    nodeName: n,
                    attacher: 'ebs.csi.aws.com',
                    attached: true,
                    finalizers: [],
                    createdAt: '2026-01-01T00:00:00Z',
                  },
                ]
              : [],
          ),
        ),
    },
  };
}

/** Routes the burst against a cluster of `size` nodes and prints one line. */
export async function routeBurst(size: number, attacher: Attacher, settings: TriggerSettings): Promise<void> {
  let t = Date.parse('2026-02-02T17:00:00Z');
  const clock = { now: () => new Date(t) };
  const strangers: Tally = { reads: 0, objects: 0 };
  const named: Tally = { reads: 0, objects: 0 };
  const deps = {
    strangers: countedDeps(size, attacher, strangers, clock),
    named: countedDeps(size, attacher, named, clock),
  };
  const ms: number[] = [];
  let nodeEvents = 0;
  for (let e = 0; e < EVENTS; e++) {
    t += 300;
    const isNode = e % 20 === 0;
    if (isNode) nodeEvents++;
    const instance = isNode ? instanceIdOf((e * 7919) % size) : instanceIdOf(e, 'f');
    const started = performance.now();
    await routeTrigger(
      isNode ? deps.named : deps.strangers,
      settings,
      parseEvent(ec2StateChange('stopped', instance)),
    );
    ms.push(performance.now() - started);
  }
  const median = [...ms].sort((a, b) => a - b)[Math.floor(ms.length / 2)] ?? Number.NaN;
  const strangerEvents = EVENTS - nodeEvents;
  console.log(
    `  ${size.toLocaleString('en').padStart(6)} nodes: stranger's instance ${(strangers.reads / strangerEvents).toFixed(2)} reads, ` +
      `${(strangers.objects / strangerEvents).toFixed(0)} objects per event; node's instance ${(named.reads / nodeEvents).toFixed(2)} reads, ` +
      `${(named.objects / nodeEvents).toFixed(0)} objects per event; ${median.toFixed(2)} ms per event (median)`,
  );
}

export async function routerBySize(sizes: readonly number[], cap: number): Promise<void> {
  const settings: TriggerSettings = {
    cluster: 'prod',
    requestDefaults: REQUEST_DEFAULTS,
    maxRunsPerEvent: cap,
  };
  console.log(
    `\nEC2 state changes, ${EVENTS} events 300 ms apart through one runtime (node index kept ${30} s), ` +
      `1 in 20 for a Ready node's instance; objects = what the reads return (${VAS_PER_NODE} VolumeAttachments per node):`,
  );
  for (const attacher of ['controller', 'kubelet'] as const) {
    console.log(
      attacher === 'controller'
        ? '  nodes attached for by the attach-detach controller (the default), their volumes in their status:'
        : '  nodes attached for by their kubelet, none reported in use (the router lists VolumeAttachments):',
    );
    for (const size of sizes) await routeBurst(size, attacher, settings);
  }
}
