/**
 * Ceph's own witness (SAFETY.md rules 1 and 2): node-a, bare metal, reaches Ceph over a storage network
 * its kubelet does not report (its Node names only its machine's address), so a fence built from the
 * Node's word alone blocklists an address Ceph never sees, and the zombie keeps its watch and its
 * writes: without a witness the fencer refuses such a node (it has no machine to power off either).
 * With the witness (`rbd status` as a read-only user), the fencer learns from Ceph that the image is
 * held from node-a's storage address, blocklists that address as well, and taints only once Ceph shows
 * no watcher left there: asserted from Ceph itself, sampled every 100 ms through the run.
 */
import { CoreV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Holder } from '../../lab/ceph/holder.js';
import type { Lab } from '../../lab/lab.js';
import { cephOf, waitForRbdRecovery, writesLandedAfter } from '../../lab/scenarios/rbd-incident.js';
import type { StatefulApp } from '../../lab/scenarios/stateful-app.js';
import { CEPH_ENV } from '../../lib/adapters/ceph-rbd/settings.js';
import {
  EBLOCKLISTED,
  expectOnlyWatchersAt,
  NO_WITNESS,
  sampleTaintAndWatchers,
  waitBlocklistedWrite,
  watcherIp,
} from '../support/ceph.js';
import { labWithCutRbdNode } from '../support/cut-node.js';
import { startFencer } from '../support/fencer-cli.js';
import { taintsOf } from '../support/lab-waits.js';

const OUT_OF_SERVICE = 'node.kubernetes.io/out-of-service=nodeshutdown:NoExecute';

describe('a node whose Ceph client uses an address its Node does not report, fenced with Ceph’s witness', () => {
  let lab: Lab;
  let app: StatefulApp;
  let zombie: Holder;
  let storageIp: string;

  beforeAll(async () => {
    ({ lab, app, zombie } = await labWithCutRbdNode({
      bareMetal: ['node-a'],
      storageAddressUnreported: ['node-a'],
    }));
    storageIp = cephOf(lab).address('node-a');
  });
  afterAll(async () => {
    await lab?.stop();
  });

  it('is a world the Node’s word cannot fence: its InternalIPs do not hold the one address Ceph sees', async () => {
    const node = await lab.kubeConfig.makeApiClient(CoreV1Api).readNode({ name: 'node-a' });
    const reported = (node.status?.addresses ?? []).map((a) => a.address);
    expect(reported).not.toContain(storageIp);
    const watchers = await cephOf(lab).watchers(app.volumeId);
    expect(watchers.map((w) => watcherIp(w.addr))).toEqual([storageIp]);
  });

  it('refuses it without the witness: WitnessRequired, nothing blocklisted, no taint', async () => {
    const ceph = cephOf(lab);
    const before = await ceph.blocklist();
    const { code, report, stderr } = await startFencer(
      lab,
      ['fence', 'node-a', '--lease-grace', '40', '--output', 'json', '--timeout', '1m'],
      undefined,
      NO_WITNESS,
    ).done;
    expect(stderr).toBe('');
    expect(report?.outcome, JSON.stringify(report)).toBe('refused');
    expect(report?.reason).toBe('WitnessRequired');
    expect(code).not.toBe(0);
    // From Ceph and the API server, not from the report: no entry added, the zombie still holds and
    // writes, and no taint.
    expect(await ceph.blocklist()).toEqual(before);
    const watchers = await ceph.watchers(app.volumeId);
    expect(watchers.map((w) => watcherIp(w.addr))).toEqual([storageIp]);
    expect(zombie.state).toBe('locked');
    expect(await taintsOf(lab, 'node-a')).not.toContain(OUT_OF_SERVICE);
  });

  it("refuses to prove an image of another Ceph cluster by this one's blocklist: a bare-metal node has no machine to prove it", async () => {
    const ceph = cephOf(lab);
    const before = await ceph.blocklist();
    // The fencer's Ceph is told it serves another ceph-csi clusterID only: the image's (the lab's fsid)
    // is then a second cluster under the same driver name.
    const { report, stderr } = await startFencer(
      lab,
      ['fence', 'node-a', '--lease-grace', '40', '--output', 'json', '--timeout', '1m'],
      undefined,
      { [CEPH_ENV.clusterIds]: 'rook-ceph-external' },
    ).done;
    expect(stderr).toBe('');
    expect(report?.outcome, JSON.stringify(report)).toBe('refused');
    expect(report?.reason).toBe('ProviderIdMissing');
    expect(report?.evidence.join('\n')).toContain(`storage cluster ${ceph.fsid}`);
    expect(await ceph.blocklist()).toEqual(before);
    expect(zombie.state).toBe('locked');
    expect(await taintsOf(lab, 'node-a')).not.toContain(OUT_OF_SERVICE);
  });

  it('blocklists the address Ceph shows holding the image, and taints only once no watcher is left there', {
    timeout: 180_000,
  }, async () => {
    const ceph = cephOf(lab);
    const core = lab.kubeConfig.makeApiClient(CoreV1Api);
    // Ceph's view and the taint, sampled together every 100 ms while the fencer runs. The lab gives the
    // fencer the witness, as a deployment with ceph-common does; its Ceph is told the image's clusterID
    // among others.
    const run = startFencer(
      lab,
      ['fence', 'node-a', '--lease-grace', '40', '--output', 'json', '--timeout', '2m'],
      undefined,
      { [CEPH_ENV.clusterIds]: `rook-ceph-external,${ceph.fsid}` },
    );
    const {
      result: { code, report, stderr },
      samples,
    } = await sampleTaintAndWatchers(
      ceph,
      lab.kubeConfig,
      { image: app.volumeId, node: 'node-a', address: storageIp },
      run.done,
    );

    expect(stderr).toBe('');
    expect(code, JSON.stringify(report)).toBe(0);
    expect(report?.outcome).toBe('fenced');
    const entries = report?.storageProof?.found.map((e) => e.entry) ?? [];
    expect(entries).toContain(`${storageIp}/32`);
    expect(report?.storageProof?.found.find((e) => e.entry === `${storageIp}/32`)?.source).toMatch(/witness/);
    // From Ceph, not from the report: never a sample with the taint on and a watcher at node-a's address.
    expect(samples.length).toBeGreaterThan(5);
    expect(samples.filter((s) => s.tainted && s.watched)).toEqual([]);
    expect(samples.some((s) => s.tainted)).toBe(true);
    expect(await taintsOf(lab, 'node-a')).toContain(OUT_OF_SERVICE);
    // The fence record names the witnessed address, so `unfence` lifts it.
    const record = JSON.parse(
      (await core.readNode({ name: 'node-a' })).metadata?.annotations?.['kube-fencer.io/fence-record'] ??
        '{}',
    );
    expect(record.blocklist).toContain(`${storageIp}/32`);
  });

  it('stops the zombie: its writes fail with the blocklist error, and the replacement holds the image on node-b', async () => {
    const ceph = cephOf(lab);
    expect((await waitBlocklistedWrite(zombie)).errno).toBe(EBLOCKLISTED);
    const client = await waitForRbdRecovery(lab, app, 'node-b');
    expect(client.state).toBe('locked');
    await expectOnlyWatchersAt(ceph, app.volumeId, [ceph.address('node-b')]);
    expect(writesLandedAfter(zombie, Date.now() / 1000)).toEqual([]);
  });
});
