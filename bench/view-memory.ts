/**
 * The sweep's memory model, measured: what one compact view costs beside the JSON object it is read
 * from, for Nodes, VolumeAttachments and PersistentVolumes shaped as the API server sends them (the
 * bench lab's objects, with managedFields). The objects are made, serialised and parsed a page at a
 * time (500) and mapped with the adapter's own view functions, as a list read does; only the views are
 * kept. Prints bytes per view and per raw object, and the views' total at a given shape.
 * Usage: node --expose-gc --import tsx bench/view-memory.ts [-- --nodes 5000 --attachments 125000]
 */
import { parseArgs } from 'node:util';
import { toPersistentVolumeView, toVolumeAttachmentView } from '../lib/adapters/kubernetes/storage-views.js';
import { toNodeView } from '../lib/adapters/kubernetes/views.js';

const { values } = parseArgs({
  options: { nodes: { type: 'string', default: '5000' }, attachments: { type: 'string', default: '125000' } },
});
const shape = { nodes: Number(values.nodes), attachments: Number(values.attachments) };
const PAGE = 500;
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');

const pad = (i: number) => String(i).padStart(6, '0');
const meta = (name: string, i: number) => ({
  name,
  uid: `0b0c${pad(i)}-1f2e-4d3c-9b8a-${pad(i)}abcdef`,
  resourceVersion: String(100000 + i),
  creationTimestamp: '2026-12-01T00:00:00Z',
  managedFields: [
    {
      manager: 'bench',
      operation: 'Update',
      apiVersion: 'v1',
      time: '2026-12-01T00:00:00Z',
      fieldsType: 'FieldsV1',
      fieldsV1: { 'f:metadata': { 'f:annotations': {} }, 'f:spec': { 'f:nodeName': {} } },
    },
  ],
});
const node = (i: number) => ({
  metadata: {
    ...meta(`bulk-${pad(i)}`, i),
    labels: { 'kubernetes.io/hostname': `bulk-${pad(i)}`, 'topology.kubernetes.io/zone': 'us-east-1a' },
  },
  spec: { providerID: `aws:///us-east-1a/i-0${pad(i)}abcdef012` },
  status: {
    conditions: [
      {
        type: 'Ready',
        status: 'True',
        reason: 'KubeletReady',
        message: 'bench',
        lastHeartbeatTime: '2026-12-01T00:00:00Z',
        lastTransitionTime: '2026-12-01T00:00:00Z',
      },
    ],
  },
});
const va = (i: number) => ({
  metadata: {
    ...meta(`bulk-va-${pad(i)}`, i),
    annotations: { 'csi.alpha.kubernetes.io/node-id': `i-0${pad(i % shape.nodes)}abcdef012` },
    finalizers: ['external-attacher/bulk-csi-kube-fencer-io'],
  },
  spec: {
    attacher: 'bulk.csi.kube-fencer.io',
    nodeName: `bulk-${pad(i % shape.nodes)}`,
    source: { persistentVolumeName: `bulk-pv-${pad(i)}` },
  },
  status: { attached: true },
});
const pv = (i: number) => ({
  metadata: meta(`bulk-pv-${pad(i)}`, i),
  spec: {
    capacity: { storage: '1Gi' },
    accessModes: ['ReadWriteOnce'],
    persistentVolumeReclaimPolicy: 'Retain',
    storageClassName: '',
    csi: { driver: 'bulk.csi.kube-fencer.io', volumeHandle: `vol-bulk${pad(i)}` },
    nodeAffinity: {
      required: {
        nodeSelectorTerms: [
          {
            matchExpressions: [
              { key: 'topology.kubernetes.io/zone', operator: 'In', values: ['us-east-1a'] },
            ],
          },
        ],
      },
    },
  },
  status: { phase: 'Available' },
});

/** Maps `count` objects page by page, keeping the views; the heap they hold and the JSON they came from. */
function measure<T>(count: number, make: (i: number) => unknown, map: (o: never) => T) {
  gc?.();
  const before = process.memoryUsage().heapUsed;
  const views: T[] = [];
  let jsonBytes = 0;
  for (let start = 0; start < count; start += PAGE) {
    const page = JSON.stringify({
      items: Array.from({ length: Math.min(PAGE, count - start) }, (_, k) => make(start + k)),
    });
    jsonBytes += page.length;
    for (const item of (JSON.parse(page) as { items: unknown[] }).items) views.push(map(item as never));
  }
  gc?.();
  const held = process.memoryUsage().heapUsed - before;
  return { views, perView: held / count, perJson: jsonBytes / count, held };
}

const nodes = measure(shape.nodes, node, toNodeView);
const vas = measure(shape.attachments, va, toVolumeAttachmentView);
const pvs = measure(shape.attachments, pv, toPersistentVolumeView);
const line = (what: string, m: { perView: number; perJson: number; held: number }, n: number) =>
  `  ${what.padEnd(20)} ${m.perView.toFixed(0).padStart(8)} ${m.perJson.toFixed(0).padStart(10)} ${(m.held / 1e6).toFixed(1).padStart(10)}  (${n})`;
console.log(
  `compact views kept by a sweep, ${shape.nodes} nodes / ${shape.attachments} attachments (one page of ${PAGE} alive at a time)`,
);
console.log(
  `  ${''.padEnd(20)} ${'B/view'.padStart(8)} ${'B/JSON obj'.padStart(10)} ${'views (MB)'.padStart(10)}`,
);
console.log(line('Node', nodes, shape.nodes));
console.log(line('VolumeAttachment', vas, shape.attachments));
console.log(line('PersistentVolume', pvs, shape.attachments));
console.log(
  `  all views: ${((nodes.held + vas.held + pvs.held) / 1e6).toFixed(0)} MB; the same objects as JSON: ${((nodes.perJson * shape.nodes + (vas.perJson + pvs.perJson) * shape.attachments) / 1e6).toFixed(0)} MB; process RSS now ${(process.memoryUsage().rss / 1e6).toFixed(0)} MB`,
);
// Keep the views alive until measured.
if (nodes.views.length + vas.views.length + pvs.views.length < 0) console.log('unreachable');
