/**
 * The simulated kubelets post the identity a kubelet on EC2 posts: `InternalIP` is the instance's
 * PrivateIpAddress and `InternalDNS`/`Hostname` its PrivateDnsName, as the EC2 emulator reports them.
 * The fencer cross-checks a Node against its instance with these, so they must come from the emulator.
 */
import { DescribeInstancesCommand } from '@aws-sdk/client-ec2';
import { CoreV1Api } from '@kubernetes/client-node';
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
});
