/**
 * The incident on a cluster older than 1.26 (the lab's legacy release, LAB_VERSIONS.legacyKubernetes),
 * cured by the real `fencer` CLI on its legacy path (SAFETY.md rule 5): there the out-of-service taint
 * releases nothing, so after proving the machine off the fencer force-deletes the node's pods and then
 * deletes its VolumeAttachments. The audit log and the EC2 emulator's log show that nothing was deleted
 * before the proof.
 */
import { CoreV1Api, VersionApi } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExitCode } from '../../cli/exit-codes.js';
import { describeInstanceState } from '../../lab/ec2-emulator.js';
import type { Lab } from '../../lab/lab.js';
import { waitForRecovery, waitPodTerminating } from '../../lab/scenarios/incident.js';
import { attachmentsOf, type StatefulApp } from '../../lab/scenarios/stateful-app.js';
import { LAB_VERSIONS } from '../../lab/versions.js';
import type { RunReport } from '../../lib/app/fence/report.js';
import { labWithCutNode } from '../support/cut-node.js';
import { describeVolumeAttachments } from '../support/ec2.js';
import { runFencer } from '../support/fencer-cli.js';
import { fencerWrites, taintsOf } from '../support/lab-waits.js';

const OUT_OF_SERVICE = 'node.kubernetes.io/out-of-service=nodeshutdown:NoExecute';
const FENCE = ['--lease-grace', '40', '--output', 'json'];
/** In the fencer's group (deploy/rbac.yaml), which may fence but not delete VolumeAttachments. */
const WITHOUT_VA_DELETE = { user: 'fencer-without-va-delete', groups: ['kube-fencer'] };

describe(`the incident on Kubernetes ${LAB_VERSIONS.legacyKubernetes}, cured by the legacy path`, () => {
  let lab: Lab;
  let app: StatefulApp;
  let fenced: RunReport | undefined;

  beforeAll(async () => {
    ({ lab, app } = await labWithCutNode({ kubernetes: 'legacy', identities: [WITHOUT_VA_DELETE] }));
  });
  afterAll(async () => {
    await lab?.stop();
  });

  it('runs a real control plane of the legacy release, where node-a’s pod is stuck Terminating', async () => {
    const version = await lab.kubeConfig.makeApiClient(VersionApi).getCode();
    expect(version.gitVersion).toBe(`v${LAB_VERSIONS.legacyKubernetes}`);
    expect(Number(version.minor)).toBeLessThan(26);
    await waitPodTerminating(lab, app, 'node-a');
  });

  it('refuses the out-of-service strategy there, and changes nothing', async () => {
    const { code, report } = await runFencer(lab, [
      'fence',
      'node-a',
      ...FENCE,
      '--strategy',
      'out-of-service',
    ]);
    expect(code).toBe(3);
    expect(report?.reason).toBe('OutOfServiceUnsupported');
    expect(fencerWrites(lab).filter((w) => !w.startsWith('create events'))).toEqual([]);
    expect(lab.ec2Faults.requests().filter((r) => r.action === 'StopInstances')).toEqual([]);
    expect(await describeInstanceState(lab.ec2.client, lab.node('node-a').instanceId)).toBe('running');
  });

  it('asks before acting for the right to delete VolumeAttachments, which the default strategy needs there', async () => {
    const { code, stderr } = await runFencer(lab, [
      'fence',
      'node-a',
      ...FENCE,
      '--kubeconfig',
      lab.identityKubeconfigPath(WITHOUT_VA_DELETE.user),
    ]);
    expect(code).toBe(ExitCode.Forbidden);
    expect(stderr).toContain('delete volumeattachments');
    const writes = lab
      .requestsBy(WITHOUT_VA_DELETE.user)
      .filter((e) => !['get', 'list', 'watch'].includes(e.verb));
    expect(writes).toEqual([]);
    expect(lab.ec2Faults.requests().filter((r) => r.action === 'StopInstances')).toEqual([]);
  });

  it('powers node-a off, taints it, then force-deletes its pod and deletes its VolumeAttachment; the volume moves', async () => {
    const { code, report, stderr } = await runFencer(lab, ['fence', 'node-a', ...FENCE]);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(report?.outcome).toBe('fenced');
    fenced = report;
    expect(report?.proofOfOff).toMatchObject({ instanceId: lab.node('node-a').instanceId, state: 'stopped' });
    const actions = report?.steps.map((s) => s.action).filter(Boolean) ?? [];
    expect(actions.slice(0, 2)).toEqual(['power-off', 'taint']);
    expect(actions).toContain('delete-volume-attachments');
    expect(await taintsOf(lab, 'node-a')).toContain(OUT_OF_SERVICE);

    await waitForRecovery(lab, app, 'node-a', 'node-b');
    const vas = await attachmentsOf(lab, app.pvName);
    expect(vas.has('node-a')).toBe(false);
    expect(vas.get('node-b')?.status?.attached).toBe(true);
    expect(await describeVolumeAttachments(lab, app.volumeId)).toEqual([
      { instanceId: lab.node('node-b').instanceId, state: 'attached' },
    ]);
    // Released by the fencer's delete, not by the taint (this controller manager does not act on it):
    // the CSI controller unpublished from node-a only after the VolumeAttachment's delete arrived.
    const vaDeletedAt = lab
      .fencerRequests()
      .find(
        (e) => e.verb === 'delete' && e.objectRef?.resource === 'volumeattachments',
      )?.requestReceivedTimestamp;
    const unpublishedAt = lab
      .readLog('csi-controller')
      .split('\n')
      .filter((l) => l.includes('"rpc"'))
      .map((l) => JSON.parse(l) as { rpc: string; node: string; result: string; ts: string })
      .find(
        (r) =>
          r.rpc === 'ControllerUnpublishVolume' &&
          r.node === lab.node('node-a').instanceId &&
          r.result === 'ok',
      );
    expect(unpublishedAt).toBeDefined();
    expect(Date.parse(unpublishedAt?.ts ?? '')).toBeGreaterThan(Date.parse(vaDeletedAt ?? ''));
  });

  it('deleted nothing before the machine was off: the audit log after the EC2 log and the proof', () => {
    const instanceId = lab.node('node-a').instanceId;
    const stop = lab.ec2Faults
      .requests()
      .find((r) => r.action === 'StopInstances' && r.status === 200 && r.instanceIds.includes(instanceId));
    expect(stop).toBeDefined();
    const provenOffAt = Date.parse(fenced?.proofOfOff?.observedAt ?? '');
    expect(provenOffAt).toBeGreaterThan(Date.parse(stop?.at ?? ''));
    const deletes = lab
      .fencerRequests()
      .filter(
        (e) => e.verb === 'delete' && ['pods', 'volumeattachments'].includes(e.objectRef?.resource ?? ''),
      );
    expect(new Set(deletes.map((e) => e.objectRef?.resource))).toEqual(
      new Set(['pods', 'volumeattachments']),
    );
    for (const e of deletes) {
      expect(e.responseStatus?.code).toBe(200);
      expect(Date.parse(e.requestReceivedTimestamp)).toBeGreaterThan(provenOffAt);
    }
    const firstVaDelete = deletes.findIndex((e) => e.objectRef?.resource === 'volumeattachments');
    const lastPodDelete = deletes.findLastIndex((e) => e.objectRef?.resource === 'pods');
    expect(lastPodDelete).toBeLessThan(firstVaDelete);
  });

  it('left Events on the node naming each step', async () => {
    const events = await lab.kubeConfig
      .makeApiClient(CoreV1Api)
      .listNamespacedEvent({ namespace: 'default', fieldSelector: 'involvedObject.name=node-a' });
    const reasons = events.items.filter((e) => e.reportingComponent === 'kube-fencer').map((e) => e.reason);
    expect(reasons).toEqual(expect.arrayContaining(['FencingPowerOff', 'FencingTaint', 'FencingFenced']));
  });
});
