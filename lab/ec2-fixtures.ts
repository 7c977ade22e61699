/**
 * The EC2 calls the lab, tests and demo make against the emulator: worker instances, EBS volumes,
 * power changes. What moto does for each is written down in lab/ec2-emulator.ts.
 */
import {
  type _InstanceType,
  AssignPrivateIpAddressesCommand,
  AttachVolumeCommand,
  CreateVolumeCommand,
  DescribeImagesCommand,
  DescribeInstancesCommand,
  DetachVolumeCommand,
  type EC2Client,
  RunInstancesCommand,
  StartInstancesCommand,
  StopInstancesCommand,
  TerminateInstancesCommand,
} from '@aws-sdk/client-ec2';
import { EMULATOR_COMPONENT as COMPONENT, Ec2EmulatorError } from './moto-install.js';

const clusterTags = (cluster: string, name: string) => [
  { Key: `kubernetes.io/cluster/${cluster}`, Value: 'owned' },
  { Key: 'Name', Value: name },
];

const amiByClient = new WeakMap<EC2Client, Promise<string>>();

/** A Linux AMI from moto's built-in catalogue (root device /dev/sda1); the same one for every call on a client. */
const labAmi = (client: EC2Client): Promise<string> => {
  let ami = amiByClient.get(client);
  if (!ami) {
    ami = client.send(new DescribeImagesCommand({ Owners: ['amazon'] })).then(({ Images = [] }) => {
      // moto always attaches the root volume at /dev/sda1: an AMI naming another root device would
      // make RootDeviceName disagree with the attachment the fencer uses to tell the boot disk apart.
      const linux = Images.filter(
        (image) =>
          String(image.Platform ?? '').toLowerCase() !== 'windows' && image.RootDeviceName === '/dev/sda1',
      );
      const ids = linux.map((image) => image.ImageId ?? '');
      const id = ids.filter(Boolean).sort()[0];
      if (!id) throw new Ec2EmulatorError(`${COMPONENT}: no Linux AMI in the emulator's catalogue`);
      return id;
    });
    // A failed lookup must not stick to the client: the next call asks again.
    ami.catch(() => amiByClient.delete(client));
    amiByClient.set(client, ami);
  }
  return ami;
};

/** A worker instance as the lab created it. */
export interface ClusterInstance {
  readonly instanceId: string;
  /** LaunchTime, ISO 8601 (one-second resolution). */
  readonly launchTime: string;
  readonly zone: string;
  /** The node's `spec.providerID`: `aws:///<zone>/<instanceId>`. */
  readonly providerId: string;
  /** PrivateIpAddress: what a kubelet on the instance reports as its `InternalIP`. */
  readonly privateIp: string;
  /** PrivateDnsName, e.g. `ip-10-29-187-74.ec2.internal`: its `InternalDNS` and `Hostname`. */
  readonly privateDnsName: string;
}

/** Runs one instance in `zone`, tagged `kubernetes.io/cluster/<cluster>=owned` and `Name=<name>`. */
export async function createClusterInstance(
  client: EC2Client,
  input: {
    readonly cluster: string;
    readonly zone: string;
    readonly name: string;
    readonly instanceType?: _InstanceType;
  },
): Promise<ClusterInstance> {
  const { Instances = [] } = await client.send(
    new RunInstancesCommand({
      ImageId: await labAmi(client),
      InstanceType: input.instanceType ?? 't3.medium',
      MinCount: 1,
      MaxCount: 1,
      Placement: { AvailabilityZone: input.zone },
      TagSpecifications: [{ ResourceType: 'instance', Tags: clusterTags(input.cluster, input.name) }],
    }),
  );
  const instance = Instances[0];
  if (!instance?.InstanceId || !instance.LaunchTime) {
    throw new Ec2EmulatorError(`${COMPONENT}: RunInstances returned no instance`);
  }
  const { InstanceId: instanceId, PrivateIpAddress: privateIp, PrivateDnsName: privateDnsName } = instance;
  // The fencer checks a node's addresses against these, so a lab without them would test nothing.
  if (!privateIp || !privateDnsName) {
    throw new Ec2EmulatorError(`${COMPONENT}: RunInstances returned ${instanceId} without a private address`);
  }
  return {
    instanceId,
    launchTime: instance.LaunchTime.toISOString(),
    zone: input.zone,
    providerId: `aws:///${input.zone}/${instanceId}`,
    privateIp,
    privateDnsName,
  };
}

/** Creates an `available` EBS volume in `zone`, tagged for the cluster; resolves to its volume id. */
export async function createVolume(
  client: EC2Client,
  input: {
    readonly zone: string;
    readonly sizeGiB: number;
    readonly cluster: string;
    readonly name?: string;
  },
): Promise<string> {
  const { VolumeId } = await client.send(
    new CreateVolumeCommand({
      AvailabilityZone: input.zone,
      Size: input.sizeGiB,
      VolumeType: 'gp3',
      TagSpecifications: [
        { ResourceType: 'volume', Tags: clusterTags(input.cluster, input.name ?? 'lab-volume') },
      ],
    }),
  );
  if (!VolumeId) throw new Ec2EmulatorError(`${COMPONENT}: CreateVolume returned no volume id`);
  return VolumeId;
}

/** Attaches a volume; fails with `VolumeInUse` while it is attached anywhere (as real EC2 does). */
export async function attachVolume(
  client: EC2Client,
  input: { readonly volumeId: string; readonly instanceId: string; readonly device: string },
): Promise<void> {
  await client.send(
    new AttachVolumeCommand({ VolumeId: input.volumeId, InstanceId: input.instanceId, Device: input.device }),
  );
}

/** Detaches a volume; moto makes it `available` at once. */
export async function detachVolume(
  client: EC2Client,
  input: { readonly volumeId: string; readonly instanceId?: string; readonly force?: boolean },
): Promise<void> {
  await client.send(
    new DetachVolumeCommand({ VolumeId: input.volumeId, InstanceId: input.instanceId, Force: input.force }),
  );
}

/** Stops an instance; in moto it reads `stopped` immediately afterwards. */
export async function stopInstance(client: EC2Client, instanceId: string): Promise<void> {
  await client.send(new StopInstancesCommand({ InstanceIds: [instanceId] }));
}

/** Starts an instance; with the fidelity patch it gets a new LaunchTime, as on real EC2. */
export async function startInstance(client: EC2Client, instanceId: string): Promise<void> {
  await client.send(new StartInstancesCommand({ InstanceIds: [instanceId] }));
}

/** Terminates an instance; its attached volumes are detached (the root volume deleted). */
export async function terminateInstance(client: EC2Client, instanceId: string): Promise<void> {
  await client.send(new TerminateInstancesCommand({ InstanceIds: [instanceId] }));
}

/**
 * Gives the instance a secondary private IP on its primary network interface: in the lab, a node's
 * address on the Ceph storage network. (moto does not check that the address lies in the interface's
 * subnet, as EC2 would; a real machine would have a second interface on a storage subnet.)
 */
export async function addPrivateIp(client: EC2Client, instanceId: string, ip: string): Promise<void> {
  const { Reservations = [] } = await client.send(
    new DescribeInstancesCommand({ InstanceIds: [instanceId] }),
  );
  const eni = Reservations[0]?.Instances?.[0]?.NetworkInterfaces?.[0]?.NetworkInterfaceId;
  if (!eni) throw new Ec2EmulatorError(`${COMPONENT}: ${instanceId} has no network interface`);
  await client.send(
    new AssignPrivateIpAddressesCommand({ NetworkInterfaceId: eni, PrivateIpAddresses: [ip] }),
  );
}

/** The instance's state name and LaunchTime as EC2 reports them now; `not-found` once EC2 forgot it. */
export async function describeInstance(
  client: EC2Client,
  instanceId: string,
): Promise<{ readonly state: string; readonly launchTime: string | undefined }> {
  try {
    const { Reservations = [] } = await client.send(
      new DescribeInstancesCommand({ InstanceIds: [instanceId] }),
    );
    const instance = Reservations[0]?.Instances?.[0];
    return { state: instance?.State?.Name ?? 'unknown', launchTime: instance?.LaunchTime?.toISOString() };
  } catch (error) {
    if ((error as Error).name === 'InvalidInstanceID.NotFound')
      return { state: 'not-found', launchTime: undefined };
    throw error;
  }
}

/** The instance's state name (`running`, `stopped`, …, or `not-found`). */
export const describeInstanceState = async (client: EC2Client, instanceId: string): Promise<string> =>
  (await describeInstance(client, instanceId)).state;
