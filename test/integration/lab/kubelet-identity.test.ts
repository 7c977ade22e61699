/**
 * The simulated kubelets post the identity a kubelet on EC2 posts: `InternalIP` is the instance's
 * PrivateIpAddress and `InternalDNS`/`Hostname` its PrivateDnsName, as the EC2 emulator reports them.
 * The fencer cross-checks a Node against its instance with these, so they must come from the emulator.
 * A cut node falls silent at once: a heartbeat posted after the cut would make it look alive to the
 * fencer, and the tests that prove a refusal or a fence would then depend on the loop's timing.
 */
import { DescribeInstancesCommand } from '@aws-sdk/client-ec2';
import { CoordinationV1Api, CoreV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Lab, startLab } from '../../../lab/lab.js';

describe('simulated kubelets', () => {
  let lab: Lab;
  beforeAll(async () => {
    lab = await startLab({ nodes: 2 });
  });
  afterAll(async () => {
    await lab?.stop();
  });

  it("post their instance's private IP and DNS name as the Node's addresses", async () => {
    const core = lab.kubeConfig.makeApiClient(CoreV1Api);
    for (const node of lab.nodes) {
      const described = await lab.ec2.client.send(
        new DescribeInstancesCommand({ InstanceIds: [node.instanceId] }),
      );
      const instance = described.Reservations?.[0]?.Instances?.[0];
      expect(instance?.PrivateIpAddress).toBe(node.privateIp);
      expect(instance?.PrivateDnsName).toBe(node.privateDnsName);

      const addresses = (await core.readNode({ name: node.name })).status?.addresses ?? [];
      expect(addresses.map((a) => `${a.type}=${a.address}`).sort()).toEqual(
        [
          `Hostname=${node.privateDnsName}`,
          `InternalDNS=${node.privateDnsName}`,
          `InternalIP=${node.privateIp}`,
        ].sort(),
      );
    }
    // Two machines, two identities: nothing is shared that would make one node vouch for another.
    expect(new Set(lab.nodes.map((n) => n.privateIp)).size).toBe(lab.nodes.length);
  });

  it('post nothing once cut: the Lease and the Ready heartbeat stay as they were', async () => {
    const core = lab.kubeConfig.makeApiClient(CoreV1Api);
    const leases = lab.kubeConfig.makeApiClient(CoordinationV1Api);
    // The Node itself may change: the node-lifecycle controller marks it NotReady and taints it.
    const seen = async () => {
      const node = await core.readNode({ name: 'node-b' });
      const lease = await leases.readNamespacedLease({ name: 'node-b', namespace: 'kube-node-lease' });
      return {
        heartbeat: node.status?.conditions?.find((c) => c.type === 'Ready')?.lastHeartbeatTime,
        renewTime: lease.spec?.renewTime,
        leaseVersion: lease.metadata?.resourceVersion,
      };
    };
    await lab.cut('node-b');
    const atCut = await seen();
    // Longer than a heartbeat period (4 s) and several Lease renewals (1 s) of a live node.
    await new Promise((r) => setTimeout(r, 6000));
    expect(await seen()).toEqual(atCut);
    // node-a is still alive: its Lease moves on.
    const lease = await leases.readNamespacedLease({ name: 'node-a', namespace: 'kube-node-lease' });
    expect(new Date(lease.spec?.renewTime ?? 0).getTime()).toBeGreaterThan(Date.now() - 5000);
  });
});
