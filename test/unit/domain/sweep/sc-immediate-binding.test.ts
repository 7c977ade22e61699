import { describe, expect, it } from 'vitest';
import { Compliant, NotApplicable } from '../../../../lib/domain/sweep/index.js';
import { scImmediateBinding } from '../../../../lib/domain/sweep/rules/sc-immediate-binding.js';
import { world } from './support.js';

const sc = (provisioner: string, volumeBindingMode: string, allowedTopologies = false) => ({
  name: 'sc',
  provisioner,
  volumeBindingMode,
  allowedTopologies,
});

describe('SC_IMMEDIATE_BINDING', () => {
  it('does not apply to Ceph RBD, which is not zonal', () => {
    expect(scImmediateBinding.check(sc('rook-ceph.rbd.csi.ceph.com', 'Immediate'), world())).toEqual(
      NotApplicable,
    );
  });

  it('is compliant with WaitForFirstConsumer', () => {
    expect(scImmediateBinding.check(sc('ebs.csi.aws.com', 'WaitForFirstConsumer'), world())).toEqual(
      Compliant,
    );
  });

  it('is compliant with Immediate binding restricted by allowedTopologies', () => {
    expect(scImmediateBinding.check(sc('ebs.csi.aws.com', 'Immediate', true), world())).toEqual(Compliant);
  });

  it.each(['ebs.csi.aws.com', 'kubernetes.io/aws-ebs', 'diskplugin.csi.alibabacloud.com'])(
    'finds %s with Immediate binding',
    (provisioner) => {
      expect(scImmediateBinding.check(sc(provisioner, 'Immediate'), world())).toMatchObject({
        kind: 'finding',
        draft: { class: 'SC_IMMEDIATE_BINDING' },
      });
    },
  );
});
