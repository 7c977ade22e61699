/**
 * Every refusal comes with its reason code and exit code 3, and mutates nothing: the audit log of
 * user kube-fencer shows no write but Events, and every instance is still running.
 */

import { DescribeInstancesCommand } from '@aws-sdk/client-ec2';
import { CoreV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Lab, startLab } from '../../lab/lab.js';
import { waitNodeNotReady } from '../../lab/scenarios/incident.js';
import { KubeCluster } from '../../lib/adapters/kubernetes/index.js';
import { LEASE_GRACE_SECONDS } from '../support/cut-node.js';
import { runFencer } from '../support/fencer-cli.js';
import { fencerWrites, waitKubeletSilentFor, waitNodeReady } from '../support/lab-waits.js';

const JSON_OUT = ['--lease-grace', '40', '--output', 'json'];

async function expectRefused(lab: Lab, args: string[], reason: string): Promise<void> {
  const { code, report, stderr } = await runFencer(lab, [...args, ...JSON_OUT]);
  expect(stderr).toBe('');
  expect(report?.outcome).toBe('refused');
  expect(report?.reason).toBe(reason);
  expect(report?.message.length).toBeGreaterThan(10);
  expect(code).toBe(3);
}

describe('refusals', () => {
  let lab: Lab;

  beforeAll(async () => {
    lab = await startLab({ nodes: 5 });
  });
  afterAll(async () => {
    await lab?.stop();
  });

  it('refuses a Ready node (heartbeats on)', async () => {
    await expectRefused(lab, ['fence', 'node-b'], 'NodeReady');
  });

  it('refuses an unknown node', async () => {
    await expectRefused(lab, ['fence', 'node-zz'], 'NodeNotFound');
  });

  it('refuses when the instance is tagged for another cluster', async () => {
    await lab.cut('node-a');
    await waitNodeNotReady(lab, 'node-a');
    await waitKubeletSilentFor(lab, 'node-a', LEASE_GRACE_SECONDS + 1);
    await expectRefused(lab, ['fence', 'node-a', '--cluster', 'another-cluster'], 'InstanceNotOwned');
  });

  it('refuses a node whose providerID is missing or garbled', async () => {
    const core = lab.kubeConfig.makeApiClient(CoreV1Api);
    await core.createNode({ body: { metadata: { name: 'ghost-missing' } } });
    await core.createNode({
      body: {
        metadata: { name: 'ghost-garbled' },
        spec: { providerID: 'aws:///us-east-1a/not-an-instance' },
      },
    });
    await core.createNode({
      body: {
        metadata: { name: 'ghost-hybrid' },
        spec: { providerID: 'eks-hybrid:///us-east-1/lab/mi-0123' },
      },
    });
    try {
      await expectRefused(lab, ['fence', 'ghost-missing'], 'ProviderIdMissing');
      await expectRefused(lab, ['fence', 'ghost-garbled'], 'ProviderIdUnparseable');
      await expectRefused(lab, ['fence', 'ghost-hybrid'], 'UnknownProvider');
    } finally {
      for (const name of ['ghost-missing', 'ghost-garbled', 'ghost-hybrid']) await core.deleteNode({ name });
    }
  });

  it('refuses when too many nodes are unhealthy (3 of 5 cut: the network, not the nodes)', async () => {
    await lab.cut('node-c');
    await lab.cut('node-d');
    await waitNodeNotReady(lab, 'node-c');
    await waitNodeNotReady(lab, 'node-d');
    await expectRefused(lab, ['fence', 'node-a'], 'TooManyUnhealthy');
    await lab.reconnect('node-c');
    await lab.reconnect('node-d');
    await waitNodeReady(lab, 'node-c');
    await waitNodeReady(lab, 'node-d');
  });

  it('refuses when too many fencings are in flight', async () => {
    const other = new KubeCluster(lab.endpoint);
    const claim = await other.claimFencing('node-e', 'another-run', { ttlSeconds: 300 });
    expect(claim.granted).toBe(true);
    try {
      // The cluster's limit is 1 until someone sets it (fencer limits).
      await expectRefused(lab, ['fence', 'node-a'], 'TooManyInFlight');
    } finally {
      await other.releaseFencing('node-e', 'another-run');
    }
  });

  it('mutated nothing: no write but Events, every instance still running, no taint added', async () => {
    expect([...new Set(fencerWrites(lab))]).toEqual(['create events']);
    const out = await lab.ec2.client.send(new DescribeInstancesCommand({}));
    const states = (out.Reservations ?? []).flatMap((r) => r.Instances ?? []).map((i) => i.State?.Name);
    expect(states.length).toBe(5);
    expect(new Set(states)).toEqual(new Set(['running']));
    const nodes = await lab.kubeConfig.makeApiClient(CoreV1Api).listNode();
    const oos = nodes.items.filter((n) =>
      n.spec?.taints?.some((t) => t.key === 'node.kubernetes.io/out-of-service'),
    );
    expect(oos).toEqual([]);
  });
});
