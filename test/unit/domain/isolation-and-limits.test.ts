/**
 * The isolation plan of a node without network images (SAFETY.md rule 1), every address of the machine
 * in an identity contradiction (rule 3), and every broken limit in one error (rule 10).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareIdentity } from '../../../lib/domain/identity.js';
import { DEFAULT_LIMITS, ValidationError } from '../../../lib/domain/index.js';
import { isolationPlan } from '../../../lib/domain/isolation.js';
import { assertLimits } from '../../../lib/domain/request.js';
import { aNode, aVolumeAttachment, IDENTITY, INSTANCE, NODE_IP, observe } from './support/fixtures.js';
import { aBlocklist, aStorage, IMAGE } from './support/storage.js';

describe('isolationPlan without a network image', () => {
  it('needs the machine off, never the storage fence, even with a storage fencer configured', () => {
    const storage = aStorage(aBlocklist(0, false));
    const plan = { machine: true, storage: false, watch: false };
    expect(isolationPlan(observe({ storage, volumeAttachments: [aVolumeAttachment('csi-db-0')] }))).toEqual(
      plan,
    );
    expect(isolationPlan(observe({ storage, volumeAttachments: [] }))).toEqual(plan);
  });
});

describe('isolationPlan with network images (both proofs where both exist)', () => {
  const BARE_METAL = { resolved: false, problem: 'missing', detail: 'no providerID' } as const;

  it('needs the machine off as well as the storage fence whenever a compute provider resolves the machine', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 4 }),
        fc.integer({ min: 0, max: 3 }),
        fc.boolean(),
        fc.boolean(),
        (images, disks, fencer, machine) => {
          const volumeAttachments = [
            ...Array.from({ length: images }, (_, i) => ({ ...IMAGE, name: `csi-image-${i}` })),
            ...Array.from({ length: disks }, (_, i) => aVolumeAttachment(`csi-disk-${i}`)),
          ];
          const plan = isolationPlan(
            observe({
              volumeAttachments,
              ...(fencer ? { storage: aStorage(aBlocklist(0, false)) } : {}),
              ...(machine ? {} : { instance: BARE_METAL }),
            }),
          );
          expect(plan.storage).toBe(fencer);
          // Only a node with no power API and nothing but images rests on the storage fence alone.
          expect(plan.machine).toBe(machine || disks > 0 || !fencer);
          expect(plan.watch).toBe(!fencer);
        },
      ),
    );
  });
});

describe('an InternalIP that is not the machine', () => {
  it('lists every address the machine has', () => {
    const node = aNode({ csiNodeIds: [], addresses: [{ type: 'InternalIP', address: '10.9.9.9' }] });
    const identity = { ...IDENTITY, privateIps: [NODE_IP, '10.0.1.24'] };
    expect(compareIdentity(node, [], INSTANCE, identity).contradictions).toEqual([
      `InternalIP 10.9.9.9 is not an address of ${INSTANCE} (${NODE_IP}, 10.0.1.24)`,
    ]);
  });
});

describe('assertLimits', () => {
  it('names every broken limit at once', () => {
    const broken = () => assertLimits({ ...DEFAULT_LIMITS, maxUnhealthyNodes: -1, maxUnhealthyFraction: 1 });
    expect(broken).toThrow(ValidationError);
    expect(broken).toThrow(
      /^invalid fence limits: maxUnhealthyNodes must be a number from 1 to \d+; maxUnhealthyFraction must be above 0 and below 1$/,
    );
  });
});
