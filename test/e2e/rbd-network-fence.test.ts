/**
 * The Ceph fence through csi-addons, as Rook and OpenShift Data Foundation run Ceph (SAFETY.md rules 1,
 * 2 and 6; docs/ceph.md): the fencer has no restful module to call, only a NetworkFenceClass. node-a,
 * bare metal, holds an RBD image and is cut; its zombie keeps writing. The fencer creates one
 * NetworkFence for node-a, the real csi-addons controller carries it to the driver (a stand-in of
 * ceph-csi's fence code: lab/csi-addons/fence-sidecar.ts), and the fencer taints only once Ceph's own
 * blocklist, read by its read-only user, lists every CIDR, and no watcher is left there: asserted from
 * Ceph, sampled every 100 ms through the run. A NetworkFence of the same name that is not kube-fencer's
 * is never changed; `unfence` flips kube-fencer's own to Unfenced, waits until Ceph lists none of its
 * CIDRs, and deletes it.
 */
import { CoreV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Holder } from '../../lab/ceph/holder.js';
import type { Lab } from '../../lab/lab.js';
import { cephOf, waitForRbdRecovery } from '../../lab/scenarios/rbd-incident.js';
import type { StatefulApp } from '../../lab/scenarios/stateful-app.js';
import { CEPH_ENV } from '../../lib/adapters/ceph-rbd/settings.js';
import {
  EBLOCKLISTED,
  expectOnlyWatchersAt,
  sampleTaintAndWatchers,
  waitBlocklistedWrite,
} from '../support/ceph.js';
import { labWithCutRbdNode } from '../support/cut-node.js';
import { startFencer } from '../support/fencer-cli.js';
import { taintsOf, waitNodeReady } from '../support/lab-waits.js';

const OUT_OF_SERVICE = 'node.kubernetes.io/out-of-service=nodeshutdown:NoExecute';
const FENCE = ['--lease-grace', '40', '--output', 'json', '--timeout', '2m'];
const NETWORK_FENCE = { group: 'csiaddons.openshift.io', version: 'v1alpha1', plural: 'networkfences' };
const NAME = 'kube-fencer-node-a';

interface NetworkFenceView {
  metadata: { labels?: Record<string, string>; annotations?: Record<string, string> };
  spec: { fenceState?: string; cidrs?: string[]; networkFenceClassName?: string };
  status?: { result?: string; message?: string };
}

describe('a bare-metal node fenced through csi-addons NetworkFence, as with Rook or ODF', () => {
  let lab: Lab;
  let app: StatefulApp;
  let zombie: Holder;
  let ip: string;
  let env: Record<string, string>;
  /** node-a's InternalIPs as /32 CIDRs (its machine's address and its storage address): what it is fenced by. */
  let ranges: string[];
  const custom = () => lab.kubeConfig.makeApiClient(CustomObjectsApi);
  const readFence = async (): Promise<NetworkFenceView | undefined> =>
    (await custom()
      .getClusterCustomObject({ ...NETWORK_FENCE, name: NAME })
      .catch(() => undefined)) as NetworkFenceView | undefined;
  /** Which of node-a's /32s Ceph lists (Ceph spells a range `10.77.1.2:0/32`). */
  const onCephList = async (): Promise<string[]> => {
    const listed = new Set(
      (await cephOf(lab).blocklist()).filter((e) => e.kind === 'range').map((e) => e.value),
    );
    return ranges.filter((r) => listed.has(r.replace('/32', ':0/32')));
  };

  beforeAll(async () => {
    ({ lab, app, zombie } = await labWithCutRbdNode({
      bareMetal: ['node-a'],
      ceph: { csiAddons: true },
    }));
    ip = cephOf(lab).address('node-a');
    const node = await lab.kubeConfig.makeApiClient(CoreV1Api).readNode({ name: 'node-a' });
    ranges = (node.status?.addresses ?? [])
      .filter((a) => a.type === 'InternalIP')
      .map((a) => `${a.address}/32`)
      .sort();
    const csiAddons = cephOf(lab).csiAddons;
    if (!csiAddons) throw new Error('the lab started without csi-addons');
    // No restful module: the fencer reaches Ceph only through csi-addons, and reads it as its witness.
    env = {
      [CEPH_ENV.mgrUrl]: '',
      [CEPH_ENV.networkFenceClass]: csiAddons.networkFenceClass,
    };
  });
  afterAll(async () => {
    await lab?.stop();
  });

  it('never changes a NetworkFence of its name that is not its own: the run is refused StorageFenceNotOurs, nothing is blocklisted or tainted', async () => {
    const ceph = cephOf(lab);
    const before = await ceph.blocklist();
    // Someone's NetworkFence of that name, Unfenced: taking it over would make it the fencer's to lift.
    await custom().createClusterCustomObject({
      ...NETWORK_FENCE,
      body: {
        apiVersion: 'csiaddons.openshift.io/v1alpha1',
        kind: 'NetworkFence',
        metadata: { name: NAME },
        spec: {
          networkFenceClassName: cephOf(lab).csiAddons?.networkFenceClass,
          fenceState: 'Unfenced',
          cidrs: [`${ip}/32`],
        },
      },
    });
    const requestsBefore = cephOf(lab).csiAddons?.sidecar.requests.length ?? 0;

    try {
      const { code, report, stderr } = await startFencer(lab, ['fence', 'node-a', ...FENCE], undefined, env)
        .done;

      // Refused before any decision with its own reason, not retried until the run's deadline.
      expect(report?.reason, stderr).toBe('StorageFenceNotOurs');
      expect(JSON.stringify(report)).toContain(
        "NetworkFence kube-fencer-node-a exists and is not kube-fencer's",
      );
      expect(report?.milestones?.decidedToFenceAt ?? null).toBeNull();
      expect(code).toBe(3);
      expect((await readFence())?.spec.fenceState).toBe('Unfenced');
      expect(await ceph.blocklist()).toEqual(before);
      expect(zombie.state).toBe('locked');
      expect(await taintsOf(lab, 'node-a')).not.toContain(OUT_OF_SERVICE);
      const fenceRequests = (cephOf(lab).csiAddons?.sidecar.requests ?? []).slice(requestsBefore);
      expect(fenceRequests.filter((r) => r.op === 'fence')).toEqual([]);
    } finally {
      await custom().deleteClusterCustomObject({ ...NETWORK_FENCE, name: NAME });
    }
  });

  it('fences through one NetworkFence, proven from Ceph’s own list, and taints only once no watcher is left at node-a', {
    timeout: 180_000,
  }, async () => {
    const ceph = cephOf(lab);
    const {
      result: { code, report, stderr },
      samples,
    } = await sampleTaintAndWatchers(
      ceph,
      lab.kubeConfig,
      { image: app.volumeId, node: 'node-a', address: ip },
      startFencer(lab, ['fence', 'node-a', ...FENCE], undefined, env).done,
    );

    expect(stderr).toBe('');
    expect(code, JSON.stringify(report)).toBe(0);
    expect(report?.outcome).toBe('fenced');
    expect(report?.storageProof?.found.map((e) => e.entry)).toContain(`${ip}/32`);
    // From Ceph and the API server, not from the report.
    expect(await onCephList()).toEqual(ranges);
    const fence = await readFence();
    expect(fence?.spec.fenceState, JSON.stringify(fence)).toBe('Fenced');
    expect(ranges).toContain(`${ip}/32`);
    expect([...(fence?.spec.cidrs ?? [])].sort()).toEqual(ranges);
    expect(fence?.metadata.labels?.['app.kubernetes.io/managed-by']).toBe('kube-fencer');
    expect(fence?.metadata.annotations?.['kube-fencer.io/node']).toBe('node-a');
    expect(fence?.status?.result).toBe('Succeeded');
    const fences = cephOf(lab).csiAddons?.sidecar.requests.filter((r) => r.op === 'fence' && r.ok) ?? [];
    expect([...(fences.at(-1)?.cidrs ?? [])].sort()).toEqual(ranges);
    expect(fences.at(-1)?.parameters.clusterID).toBe(ceph.fsid);
    expect(samples.length).toBeGreaterThan(5);
    expect(samples.filter((s) => s.tainted && s.watched)).toEqual([]);
    expect(await taintsOf(lab, 'node-a')).toContain(OUT_OF_SERVICE);
  });

  it('stops the zombie: its writes fail with the blocklist error, and the replacement holds the image on node-b', async () => {
    const ceph = cephOf(lab);
    expect((await waitBlocklistedWrite(zombie)).errno).toBe(EBLOCKLISTED);
    const client = await waitForRbdRecovery(lab, app, 'node-b');
    expect(client.state).toBe('locked');
    await expectOnlyWatchersAt(ceph, app.volumeId, [ceph.address('node-b')]);
  });

  it('after a power cycle, unfence flips its NetworkFence to Unfenced, waits for Ceph to drop the CIDR, deletes it and removes the taint', {
    timeout: 180_000,
  }, async () => {
    await lab.crash('node-a');
    await lab.restore('node-a');
    await waitNodeReady(lab, 'node-a');
    const requestsBefore = cephOf(lab).csiAddons?.sidecar.requests.length ?? 0;

    const { code, report, stderr } = await startFencer(
      lab,
      ['unfence', 'node-a', '--output', 'json'],
      undefined,
      env,
    ).done;

    expect(stderr).toBe('');
    expect(code, JSON.stringify(report)).toBe(0);
    expect(report?.outcome).toBe('unfenced');
    expect(report?.steps.map((s) => s.action).filter(Boolean)).toEqual(['storage-lift', 'remove-taint']);
    expect(await onCephList()).toEqual([]);
    expect(await readFence()).toBeUndefined();
    const unfences = (cephOf(lab).csiAddons?.sidecar.requests ?? [])
      .slice(requestsBefore)
      .filter((r) => r.op === 'unfence' && r.ok);
    // csi-addons may ask more than once (each write to the object is a reconcile): always its CIDRs.
    expect(unfences.length).toBeGreaterThan(0);
    expect(new Set(unfences.map((r) => [...r.cidrs].sort().join(',')))).toEqual(new Set([ranges.join(',')]));
    expect(await taintsOf(lab, 'node-a')).not.toContain(OUT_OF_SERVICE);
  });
});
