/**
 * What an ACK worker looks like to Kubernetes, for the Alibaba-flavoured lab: its ECS instance (in the
 * ECS emulator, tagged as ACK tags it), and the Node the cloud controller and the kubelet make of it.
 */

import type { EcsClient } from '../lib/adapters/alicloud-ecs/index.js';
import { Ecs } from '../lib/adapters/alicloud-ecs/sdk.js';
import type { EcsEmulatorAdmin } from './ecs-emulator/index.js';
import type { SimulatedNode } from './kubelets.js';

/** The Alibaba Cloud disk CSI driver's name; the lab's CSI controller registers as it. */
export const ALIBABA_DISK_DRIVER = 'diskplugin.csi.alibabacloud.com';
/** The zone key the disk driver reports and puts in its PVs' node affinity. */
export const ALIBABA_DISK_ZONE_KEY = 'topology.diskplugin.csi.alibabacloud.com/zone';
/** ACK's node pool of the lab's workers. */
const NODE_POOL = 'np-lab';

/** The tags ACK puts on a worker's instance: the cluster id and the node pool. */
export const ackInstanceTags = (cluster: string): Record<string, string> => ({
  'ack.aliyun.com': cluster,
  'ack.alibabacloud.com/nodepool-id': NODE_POOL,
});

/**
 * A simulated ACK worker. Its `privateDnsName` is the instance's host name, lower case, as its kubelet
 * reports it (`izbp1…z`); ECS has no other private DNS name by default.
 */
export type AckWorker = SimulatedNode;

/**
 * Creates the worker's instance and describes its Node as ACK makes it: providerID `<region>.<instance>`
 * (the cloud controller's format), the CCM's and ACK's labels, the kubelet's addresses (InternalIP is
 * the instance's private address, Hostname its host name), and the disk driver's node id and topology.
 */
/** How long before the lab made it a worker's machine booted. */
const WORKER_BOOTED_SECONDS_AGO = 300;

export async function createAckWorker(
  admin: EcsEmulatorAdmin,
  input: { readonly cluster: string; readonly region: string; readonly zone: string; readonly name: string },
): Promise<AckWorker> {
  const instance = await admin.createInstance({
    zoneId: input.zone,
    instanceName: input.name,
    tags: ackInstanceTags(input.cluster),
    // A worker's machine booted minutes before its kubelet joined, as on ECS: ECS reads start times to
    // the minute, and a start in the minute of a fence decision is read as possibly after it.
    bootedSecondsAgo: WORKER_BOOTED_SECONDS_AGO,
  });
  const instanceId = instance.InstanceId;
  const privateIp = instance.VpcAttributes.PrivateIpAddress.IpAddress[0] ?? '';
  const hostname = instance.HostName.toLowerCase();
  return {
    name: input.name,
    instanceId,
    zone: input.zone,
    region: input.region,
    providerID: `${input.region}.${instanceId}`,
    privateIp,
    privateDnsName: hostname,
    labels: {
      'node.kubernetes.io/instance-type': 'ecs.g7.large',
      'failure-domain.beta.kubernetes.io/zone': input.zone,
      'failure-domain.beta.kubernetes.io/region': input.region,
      'node.alibabacloud.com/instance-charge-type': 'PostPaid',
      'node.alibabacloud.com/spot-strategy': 'NoSpot',
      'node.alibabacloud.com/nodepool-id': NODE_POOL,
      'alibabacloud.com/nodepool-id': NODE_POOL,
      'ack.aliyun.com': input.cluster,
      [ALIBABA_DISK_ZONE_KEY]: input.zone,
    },
    annotations: { 'csi.volume.kubernetes.io/nodeid': JSON.stringify({ [ALIBABA_DISK_DRIVER]: instanceId }) },
    addresses: [
      { type: 'InternalIP', address: privateIp },
      { type: 'Hostname', address: hostname },
    ],
    csiTopologyKeys: [
      ALIBABA_DISK_ZONE_KEY,
      'topology.kubernetes.io/region',
      'alibabacloud.com/ecs-instance-id',
    ],
  };
}

/** Creates an Available ESSD cloud disk in `zone`, tagged for the cluster; resolves to its disk id. */
export async function createCloudDisk(
  client: EcsClient,
  input: {
    readonly region: string;
    readonly zone: string;
    readonly sizeGiB: number;
    readonly cluster: string;
  },
): Promise<string> {
  const answer = await client.createDisk(
    new Ecs.CreateDiskRequest({
      regionId: input.region,
      zoneId: input.zone,
      size: input.sizeGiB,
      diskCategory: 'cloud_essd',
      diskName: 'lab-disk',
      tag: [new Ecs.CreateDiskRequestTag({ key: 'ack.aliyun.com', value: input.cluster })],
    }),
  );
  const diskId = answer.body?.diskId;
  if (!diskId) throw new Error('ecs-emulator: CreateDisk returned no disk id');
  return diskId;
}

/** Stops an instance by force (a crash), as the console's "force stop" does. */
export async function stopEcsInstance(client: EcsClient, instanceId: string): Promise<void> {
  await client.stopInstance(new Ecs.StopInstanceRequest({ instanceId, forceStop: true }));
}

/** Starts a stopped instance (a new StartTime once it is Running). */
export async function startEcsInstance(client: EcsClient, instanceId: string): Promise<void> {
  await client.startInstance(new Ecs.StartInstanceRequest({ instanceId }));
}

/** The instance's ECS status (`Running`, `Stopping`, `Stopped`, ...), or `not-found`. */
export async function ecsInstanceStatus(
  client: EcsClient,
  region: string,
  instanceId: string,
): Promise<string> {
  const answer = await client.describeInstances(
    new Ecs.DescribeInstancesRequest({ regionId: region, instanceIds: JSON.stringify([instanceId]) }),
  );
  return answer.body?.instances?.instance?.[0]?.status ?? 'not-found';
}

/** Where ECS says a disk is attached, as plain data to compare. */
export async function ecsDiskAttachments(
  client: EcsClient,
  region: string,
  diskId: string,
): Promise<{ instanceId: string; status: string }[]> {
  const answer = await client.describeDisks(
    new Ecs.DescribeDisksRequest({ regionId: region, diskIds: JSON.stringify([diskId]) }),
  );
  const disk = answer.body?.disks?.disk?.[0];
  if (!disk) return [];
  return (disk.attachments?.attachment ?? []).map((a) => ({
    instanceId: a.instanceId ?? '',
    status: disk.status ?? '',
  }));
}

/** ECS instances and cloud disks, as the ECS emulator shows them, for the incident's timeline. */
export const ecsWatcher =
  (client: EcsClient, region: string) => async (): Promise<[string, Record<string, string>][]> => {
    const [instances, disks] = await Promise.all([
      client.describeInstances(new Ecs.DescribeInstancesRequest({ regionId: region, maxResults: 100 })),
      client.describeDisks(
        new Ecs.DescribeDisksRequest({ regionId: region, diskType: 'data', maxResults: 100 }),
      ),
    ]);
    const seen: [string, Record<string, string>][] = [];
    for (const i of instances.body?.instances?.instance ?? []) {
      seen.push([`ecs/${i.instanceId} (${i.instanceName})`, { status: i.status ?? '?' }]);
    }
    for (const d of disks.body?.disks?.disk ?? []) {
      const on = (d.attachments?.attachment ?? []).map((a) => a.instanceId).join(',') || 'none';
      seen.push([`disk/${d.diskId}`, { status: d.status ?? '?', attachedTo: on }]);
    }
    return seen;
  };
