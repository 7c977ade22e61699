/**
 * The isolation plan's judgement of a terminated machine whose images no one holds (SAFETY.md rule 1,
 * lib/domain/isolation.ts): only two agreeing sources drop the storage fence, a witness that looked at
 * nothing proves nothing; the images no storage fencer reaches, as the evidence names them; and the
 * time a watch needs to expire, counted from the proof of off.
 */
import { describe, expect, it } from 'vitest';
import { WATCH_EXPIRY_SECONDS } from '../../../lib/domain/blocklist.js';
import { ValidationError } from '../../../lib/domain/index.js';
import {
  isolationPlan,
  terminatedAndUnheld,
  unservedImages,
  watchesExpired,
} from '../../../lib/domain/isolation.js';
import type { ImageHolder, Observation } from '../../../lib/domain/observation.js';
import { aVolumeAttachment, NODE_IP, observe, T0, t } from './support/fixtures.js';
import { aBlocklist, aStorage, IMAGE } from './support/storage.js';

const RBD = 'replicapool/csi-vol-0';
const HOLDER: ImageHolder = { image: RBD, address: NODE_IP, client: 'client.4156' };

/** A node holding one RBD image, its machine in `state`, and the witness's answer about `images`. */
function node(
  state: 'terminated' | 'stopped' | 'running',
  images: readonly string[],
  holders: readonly ImageHolder[],
  imagesInUse?: readonly string[],
): Observation {
  const observation = observe({
    power: { state },
    volumeAttachments: [IMAGE],
    storage: {
      ...aStorage(aBlocklist(0, false)),
      holders: { ok: true, value: { source: 'rbd status', observedAt: t(0), images, holders } },
    },
  });
  return imagesInUse ? { ...observation, workload: { ...observation.workload, imagesInUse } } : observation;
}

describe('terminatedAndUnheld', () => {
  it('drops the storage fence for a terminated machine whose images the witness shows no one holding', () => {
    const observation = node('terminated', [RBD], []);
    expect(terminatedAndUnheld(observation)).toBe(true);
    expect(isolationPlan(observation)).toEqual({ machine: true, storage: false, watch: true });
  });

  it.each<[string, Observation]>([
    ['the witness asked about no image (its PersistentVolume gone since)', node('terminated', [], [])],
    ['a client still holds an image', node('terminated', [RBD], [HOLDER])],
    [
      'the kubelet reports an image in use as well (no attachment names it)',
      node('terminated', [RBD], [], ['rbd.csi.ceph.com^0001-csi-vol-1']),
    ],
    ['the machine is stopped, not terminated', node('stopped', [RBD], [])],
  ])('keeps the storage fence when %s', (_, observation) => {
    expect(terminatedAndUnheld(observation)).toBe(false);
    expect(isolationPlan(observation).storage).toBe(true);
  });
});

describe('unservedImages', () => {
  it('names each image no storage fencer reaches, by its volume and cluster, and none that one does', () => {
    const unserved = (name: string, overrides: object) =>
      aVolumeAttachment(name, { attacher: 'rbd.csi.ceph.com', image: true, ...overrides });
    const observation = observe({
      volumeAttachments: [
        IMAGE,
        aVolumeAttachment('csi-disk-0'),
        unserved('csi-rbd-1', { unservedCluster: 'ceph-b' }),
        unserved('csi-rbd-2', { persistentVolume: null, unservedCluster: 'unknown' }),
      ],
    });
    const withInUse = {
      ...observation,
      workload: { ...observation.workload, unservedImagesInUse: ['rbd.csi.ceph.com^0002-csi-vol-9'] },
    };
    expect(unservedImages(withInUse)).toEqual([
      'pv-csi-rbd-1 (storage cluster ceph-b)',
      'csi-rbd-2 (storage cluster unknown)',
      'rbd.csi.ceph.com^0002-csi-vol-9 (reported in use)',
    ]);
    expect(unservedImages(observe({ volumeAttachments: [IMAGE] }))).toEqual([]);
  });
});

describe('watchesExpired', () => {
  it(`counts ${WATCH_EXPIRY_SECONDS} s from the proof of off, that instant included`, () => {
    expect(watchesExpired(t(0), T0 + WATCH_EXPIRY_SECONDS * 1000 - 1)).toBe(false);
    expect(watchesExpired(t(0), T0 + WATCH_EXPIRY_SECONDS * 1000)).toBe(true);
  });

  it('names the proof’s time when it cannot be read', () => {
    expect(() => watchesExpired('yesterday', T0)).toThrow(
      new ValidationError('proofOfOff.observedAt is not an ISO 8601 time with a zone: "yesterday"'),
    );
  });
});
