/**
 * SC_IMMEDIATE_BINDING: a zonal provisioner with
 * `Immediate` binding creates the volume before the pod is scheduled, possibly in a zone where the pod
 * can never run ("volume node affinity conflict"). `WaitForFirstConsumer` (or allowedTopologies) avoids it.
 */
import { SweepClass } from '../classes.js';
import { NO_PROBE } from '../cross-check.js';
import { Compliant, finding, NextActionKind, NotApplicable, type SweepRule } from '../finding.js';
import type { SweepStorageClass } from '../model.js';
import { isZonalProvisioner } from './zonal.js';

export const scImmediateBinding: SweepRule<SweepStorageClass> = {
  class: SweepClass.ScImmediateBinding,
  contract: 'zonal StorageClasses need WaitForFirstConsumer',
  subjects: (index) => index.snapshot.storageClasses,
  check(sc) {
    if (!isZonalProvisioner(sc.provisioner)) return NotApplicable;
    if (sc.volumeBindingMode === 'WaitForFirstConsumer' || sc.allowedTopologies) return Compliant;
    return finding({
      class: SweepClass.ScImmediateBinding,
      key: sc.name,
      summary: `StorageClass ${sc.name} (${sc.provisioner}, zonal) binds Immediately: volumes may be created in a zone where their pod cannot run`,
      objects: [{ kind: 'StorageClass', name: sc.name }],
      evidence: [
        `StorageClass ${sc.name}: provisioner ${sc.provisioner}, volumeBindingMode ${sc.volumeBindingMode}, no allowedTopologies`,
      ],
      probe: NO_PROBE,
    });
  },
  advise(draft) {
    return {
      kind: NextActionKind.FixStorageClass,
      description:
        `Re-create StorageClass ${draft.key} with volumeBindingMode: WaitForFirstConsumer (the field is immutable), ` +
        'so each volume is created in the zone its first pod is scheduled to. Existing volumes keep their zone.',
      automatic: false,
    };
  },
};
