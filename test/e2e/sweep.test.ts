/**
 * `fencer sweep` against a real lab: a healthy cluster gives no findings; then one fault per class is
 * planted and each is found with its objects, evidence, EC2 cross-check and next safe action; then
 * --remediate deletes only the zombie VolumeAttachment whose disk EC2 proves released.
 */
import { StorageV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  attachVolume,
  createClusterInstance,
  createVolume,
  terminateInstance,
} from '../../lab/ec2-emulator.js';
import { type Lab, startLab } from '../../lab/lab.js';
import { taintOutOfService } from '../../lab/scenarios/incident.js';
import { deployStatefulApp } from '../../lab/scenarios/stateful-app.js';
import type { SweepReport } from '../../lib/app/sweep/report.js';
import type { Finding } from '../../lib/domain/sweep/finding.js';
import { runFencer } from '../support/fencer-cli.js';
import { fencerWrites } from '../support/lab-waits.js';
import {
  addCsiDriver,
  createClaimAndPod,
  createPv,
  createVa,
  TEST_DRIVER,
  vaExists,
} from '../support/sweep-fixtures.js';

const NOW_THRESHOLDS = [
  '--stuck-deleting-threshold',
  '0',
  '--attach-error-threshold',
  '0',
  '--not-ready-threshold',
  '0',
];

async function sweepJson(
  lab: Lab,
  extra: string[] = [],
): Promise<{ code: number | null; report: SweepReport }> {
  const { code, stdout, stderr } = await runFencer(lab, [
    'sweep',
    ...NOW_THRESHOLDS,
    '--output',
    'json',
    ...extra,
  ]);
  expect(stderr).toBe('');
  return { code, report: JSON.parse(stdout) as SweepReport };
}

const byId = (report: SweepReport, id: string): Finding | undefined =>
  report.findings.find((f) => f.id === id);

describe('fencer sweep', () => {
  let lab: Lab;
  let released: { instanceId: string; volumeId: string };
  let held: { instanceId: string; volumeId: string };

  beforeAll(async () => {
    lab = await startLab({ nodes: 4 });
    await deployStatefulApp(lab, { onNode: 'node-a' });
  });
  afterAll(async () => {
    await lab?.stop();
  });

  it('finds nothing in a healthy cluster of the same shape, and exits 0 even with --fail-on-findings', async () => {
    const { code, report } = await sweepJson(lab, ['--fail-on-findings']);
    expect(report.findings).toEqual([]);
    expect(report.scanned).toMatchObject({ nodes: 4, volumeAttachments: 1, persistentVolumes: 1 });
    expect(Object.values(report.counts).every((n) => n === 0)).toBe(true);
    expect(code).toBe(0);
  });

  describe('with one fault planted per class', () => {
    let report: SweepReport;

    beforeAll(async () => {
      const ec2 = lab.ec2.client;
      // VA_NODE_MISSING, twice: a terminated instance whose disk is detached, and a running one that holds its disk.
      const gone = await createClusterInstance(ec2, {
        cluster: lab.cluster,
        zone: `${lab.region}a`,
        name: 'node-gone',
      });
      await terminateInstance(ec2, gone.instanceId);
      released = {
        instanceId: gone.instanceId,
        volumeId: await createVolume(ec2, { zone: `${lab.region}a`, sizeGiB: 1, cluster: lab.cluster }),
      };
      const alive = await createClusterInstance(ec2, {
        cluster: lab.cluster,
        zone: `${lab.region}a`,
        name: 'node-vanished',
      });
      held = {
        instanceId: alive.instanceId,
        volumeId: await createVolume(ec2, { zone: `${lab.region}a`, sizeGiB: 1, cluster: lab.cluster }),
      };
      await attachVolume(ec2, { volumeId: held.volumeId, instanceId: held.instanceId, device: '/dev/xvdf' });
      // EBS PVs carry their zone (the CSI driver's topology): where "not found" can count as proof.
      const zone = `${lab.region}a`;
      await createPv(lab, { name: 'pv-released', volumeHandle: released.volumeId, zone });
      await createPv(lab, { name: 'pv-held', volumeHandle: held.volumeId, zone });
      const attached = { attached: true };
      await createVa(lab, {
        name: 'va-released',
        nodeName: 'node-gone',
        pvName: 'pv-released',
        csiNodeId: gone.instanceId,
        status: attached,
      });
      await createVa(lab, {
        name: 'va-held',
        nodeName: 'node-vanished',
        pvName: 'pv-held',
        csiNodeId: held.instanceId,
        status: attached,
      });
      // VA_PV_MISSING
      await createVa(lab, {
        name: 'va-orphan',
        nodeName: 'node-b',
        pvName: 'pv-deleted-long-ago',
        status: attached,
      });
      // VA_STUCK_DELETING: a finalizer nobody removes
      await createPv(lab, { name: 'pv-stuck', volumeHandle: 'vol-0000000000000000a' });
      await createVa(lab, {
        name: 'va-stuck',
        nodeName: 'node-b',
        pvName: 'pv-stuck',
        finalizers: ['external-attacher/sweep-test'],
        status: attached,
      });
      await lab.kubeConfig.makeApiClient(StorageV1Api).deleteVolumeAttachment({ name: 'va-stuck' });
      // TARGET_ATTACH_STUCK
      await createPv(lab, { name: 'pv-target', volumeHandle: 'vol-0000000000000000b' });
      const attachError = {
        message: 'rpc error: code = ResourceExhausted desc = Attachment limit exceeded',
        time: new Date(),
      };
      await createVa(lab, {
        name: 'va-target',
        nodeName: 'node-c',
        pvName: 'pv-target',
        status: { attached: false, attachError },
      });
      // TAINT_LEFT_BEHIND on a Ready node with nothing on it
      await taintOutOfService(lab, 'node-d');
      // NO_HEALTHY_NODE_IN_PV_ZONE: a zonal PV in a zone without nodes, and its Pending pod
      await createPv(lab, {
        name: 'pv-zone-z',
        volumeHandle: 'vol-0000000000000000c',
        driver: 'ebs.csi.aws.com',
        zone: `${lab.region}z`,
        claim: { namespace: 'default', name: 'zone-z' },
      });
      await createClaimAndPod(lab, { name: 'zone-z', pvName: 'pv-zone-z' });
      // SC_IMMEDIATE_BINDING
      await lab.kubeConfig.makeApiClient(StorageV1Api).createStorageClass({
        body: {
          metadata: { name: 'gp3-immediate' },
          provisioner: 'ebs.csi.aws.com',
          volumeBindingMode: 'Immediate',
        },
      });
      // NO_ATTACH_CAPACITY: every node running the test driver is at its limit of 1
      await addCsiDriver(lab, 'node-b', TEST_DRIVER, 1);
      await addCsiDriver(lab, 'node-c', TEST_DRIVER, 1);
      await createPv(lab, {
        name: 'pv-capacity',
        volumeHandle: 'vol-0000000000000000d',
        claim: { namespace: 'default', name: 'capacity' },
      });
      await createClaimAndPod(lab, {
        name: 'capacity',
        pvName: 'pv-capacity',
        schedulerName: 'nobody-schedules-this',
      });

      ({ report } = await sweepJson(lab));
    });

    it('VA_NODE_MISSING: both zombies, with the instance and disk state from EC2', () => {
      const ok = byId(report, 'VA_NODE_MISSING/va-released');
      expect(ok?.objects).toEqual(
        expect.arrayContaining([expect.objectContaining({ kind: 'Node', name: 'node-gone' })]),
      );
      expect(ok?.crossCheck?.instances).toEqual([
        expect.objectContaining({
          instanceId: released.instanceId,
          power: expect.objectContaining({
            ok: true,
            value: expect.objectContaining({ state: 'terminated' }),
          }),
        }),
      ]);
      expect(ok?.crossCheck?.disks).toEqual([
        expect.objectContaining({
          volumeId: released.volumeId,
          disk: expect.objectContaining({
            ok: true,
            value: expect.objectContaining({ providerState: 'available', attachments: [] }),
          }),
        }),
      ]);
      expect(ok?.nextAction).toMatchObject({ kind: 'delete-volume-attachment', automatic: true });
      const no = byId(report, 'VA_NODE_MISSING/va-held');
      expect(no?.nextAction).toMatchObject({ kind: 'investigate', automatic: false });
      expect(no?.nextAction.description).toContain('DiskAttachedToLiveInstance');
      expect(report.providerCalls).toBeGreaterThan(0);
      expect(report.providerCalls).toBeLessThanOrEqual(6);
    });

    it('VA_PV_MISSING: the attachment whose PV is gone', () => {
      expect(byId(report, 'VA_PV_MISSING/va-orphan')?.evidence).toContain(
        'PersistentVolume pv-deleted-long-ago: not found',
      );
    });

    it('VA_STUCK_DELETING: the attachment held by its finalizer', () => {
      const f = byId(report, 'VA_STUCK_DELETING/va-stuck');
      expect(f?.summary).toContain('external-attacher/sweep-test');
    });

    it('TARGET_ATTACH_STUCK: the attachment failing to attach, with the attach limit as the next step', () => {
      const f = byId(report, 'TARGET_ATTACH_STUCK/va-target');
      expect(f?.summary).toContain('Attachment limit exceeded');
      expect(f?.nextAction.kind).toBe('add-attach-capacity');
    });

    it('TAINT_LEFT_BEHIND: node-d is Ready, tainted by someone else, with nothing to drain', () => {
      const f = byId(report, 'TAINT_LEFT_BEHIND/node-d');
      expect(f?.evidence.join('\n')).toContain('someone else added the taint');
      expect(f?.nextAction.command).toContain(
        'kubectl taint nodes node-d node.kubernetes.io/out-of-service-',
      );
    });

    it('NO_HEALTHY_NODE_IN_PV_ZONE: the PV in a zone without nodes and its Pending pod', () => {
      const f = byId(report, 'NO_HEALTHY_NODE_IN_PV_ZONE/pv-zone-z');
      expect(f?.objects).toEqual(
        expect.arrayContaining([expect.objectContaining({ kind: 'Pod', name: 'zone-z' })]),
      );
      expect(f?.nextAction.kind).toBe('restore-zone');
    });

    it('SC_IMMEDIATE_BINDING: the zonal class that binds Immediately, not the lab’s WaitForFirstConsumer one', () => {
      expect(byId(report, 'SC_IMMEDIATE_BINDING/gp3-immediate')).toBeDefined();
      expect(byId(report, 'SC_IMMEDIATE_BINDING/lab-ebs')).toBeUndefined();
    });

    it('NO_ATTACH_CAPACITY: the Pending pod whose every eligible node is at its attach limit', () => {
      const f = byId(report, 'NO_ATTACH_CAPACITY/default/capacity');
      expect(f?.evidence.join('\n')).toMatch(/CSINode node-b: \d+ of 1/);
    });

    it('reports nothing about the healthy workload in the same cluster', () => {
      expect(report.findings.filter((f) => f.class === 'VA_ON_NOTREADY_NODE')).toEqual([]);
      expect(report.counts).toMatchObject({ VA_NODE_MISSING: 2, VA_PV_MISSING: 1, VA_STUCK_DELETING: 1 });
    });

    it('finds the same with one object per page of every list (--chunk-size 1), page after page', async () => {
      const mark = lab.fencerRequests().length;
      const { report: paged } = await sweepJson(lab, ['--chunk-size', '1']);
      const vaPages = lab
        .fencerRequests()
        .slice(mark)
        .filter((e) => e.verb === 'list' && e.objectRef?.resource === 'volumeattachments');
      // What a finding is, without the ages and times that move between two sweeps.
      const gist = (r: SweepReport) =>
        r.findings
          .map((f) => ({ id: f.id, objects: f.objects, next: f.nextAction.kind }))
          .sort((a, b) => (a.id < b.id ? -1 : 1));

      expect(report.scanned.volumeAttachments).toBeGreaterThan(1);
      expect(vaPages.length).toBeGreaterThanOrEqual(report.scanned.volumeAttachments);
      expect(paged.scanned).toEqual(report.scanned);
      expect(gist(paged)).toEqual(gist(report));
    });
  });

  describe('--remediate', () => {
    it('with --dry-run says what it would delete and deletes nothing', async () => {
      const { report } = await sweepJson(lab, ['--remediate', '--dry-run']);
      expect(byId(report, 'VA_NODE_MISSING/va-released')?.remediation).toMatchObject({ status: 'dry-run' });
      expect(await vaExists(lab, 'va-released')).toBe(true);
    });

    it('with the wrong --region deletes nothing: "not found" there proves nothing about a disk in another region', async () => {
      const wrong = lab.region === 'eu-west-1' ? 'us-west-2' : 'eu-west-1';
      const { report } = await sweepJson(lab, ['--remediate', '--region', wrong]);

      expect(await vaExists(lab, 'va-released')).toBe(true);
      expect(await vaExists(lab, 'va-held')).toBe(true);
      for (const id of ['VA_NODE_MISSING/va-released', 'VA_NODE_MISSING/va-held']) {
        const remediation = byId(report, id)?.remediation;
        expect(remediation).toMatchObject({ status: 'refused', reason: 'DiskAbsenceUnproven' });
        expect(remediation?.detail).toContain(wrong);
      }
      expect(report.remediations.done).toBe(0);
    });

    it('under EC2 throttling deletes nothing, reports the failed cross-check, and exits 4 with --fail-on-findings', async () => {
      lab.ec2Faults.inject({ kind: 'throttle', action: '*' });
      let result: Awaited<ReturnType<typeof sweepJson>>;
      try {
        result = await sweepJson(lab, ['--remediate', '--fail-on-findings']);
      } finally {
        lab.ec2Faults.clear();
      }
      const { code, report } = result;

      expect(await vaExists(lab, 'va-released')).toBe(true);
      expect(report.crossCheck.failed).toBeGreaterThan(0);
      expect(report.crossCheck.faults.join('\n')).toMatch(/RequestLimitExceeded|Throttl/);
      expect(report.remediations.done).toBe(0);
      expect(code).toBe(4);
    });

    it('deletes the VolumeAttachment of a deleted node whose disk EC2 shows detached, and refuses the one whose disk a running instance holds', async () => {
      const { code, report } = await sweepJson(lab, ['--remediate']);
      expect(code).toBe(0);
      expect(byId(report, 'VA_NODE_MISSING/va-released')?.remediation).toMatchObject({ status: 'done' });
      expect(await vaExists(lab, 'va-released')).toBe(false);

      const refused = byId(report, 'VA_NODE_MISSING/va-held')?.remediation;
      expect(refused).toMatchObject({ status: 'refused', reason: 'DiskAttachedToLiveInstance' });
      expect(refused?.detail).toContain(held.instanceId);
      expect(await vaExists(lab, 'va-held')).toBe(true);
    });

    it('made no write but that one deletion (and its Events): report-only classes stay untouched', () => {
      const writes = fencerWrites(lab).filter((w) => !w.endsWith('events'));
      expect(writes).toEqual(['delete volumeattachments', 'delete volumeattachments']);
      expect(
        lab
          .fencerRequests()
          .filter((e) => e.verb === 'delete')
          .map((e) => e.objectRef?.name),
      ).toEqual(['va-released', 'va-released']);
    });
  });
});
