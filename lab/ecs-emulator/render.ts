/** The emulator's state as ECS's JSON answers show it (PascalCase, lists wrapped in their element name). */
import { type Disk, ecsTime, type Instance } from './model.js';

const tagList = (tags: Map<string, string>) => ({
  Tag: [...tags].map(([TagKey, TagValue]) => ({ TagKey, TagValue })),
});

/** One instance of DescribeInstances (the fields the fencer and operators read, as ECS spells them). */
export const renderInstance = (i: Instance) => ({
  InstanceId: i.instanceId,
  InstanceName: i.instanceName,
  HostName: i.hostName,
  RegionId: i.regionId,
  ZoneId: i.zoneId,
  Status: i.status,
  StartTime: ecsTime(i.startTime),
  CreationTime: ecsTime(i.creationTime),
  ExpiredTime: '2099-12-31T15:59Z',
  InstanceChargeType: i.instanceChargeType,
  SpotStrategy: i.spotStrategy,
  StoppedMode: i.stoppedMode,
  InstanceType: 'ecs.g7.large',
  InstanceNetworkType: 'vpc',
  OSType: 'linux',
  DeletionProtection: false,
  OperationLocks: {
    LockReason: i.locks.map((l) => ({ LockReason: l.lockReason, LockMsg: l.lockMsg ?? '' })),
  },
  Tags: tagList(i.tags),
  VpcAttributes: {
    VpcId: 'vpc-lab',
    VSwitchId: `vsw-${i.zoneId}`,
    NatIpAddress: '',
    PrivateIpAddress: { IpAddress: [i.privateIp] },
  },
  InnerIpAddress: { IpAddress: [] },
  PublicIpAddress: { IpAddress: [] },
  NetworkInterfaces: {
    NetworkInterface: [
      {
        NetworkInterfaceId: `eni-${i.instanceId.slice(2)}`,
        Type: 'Primary',
        PrimaryIpAddress: i.privateIp,
        PrivateIpSets: { PrivateIpSet: [{ PrivateIpAddress: i.privateIp, Primary: true }] },
      },
    ],
  },
});

/** One disk of DescribeDisks. A single-attach disk names its instance; a multi-attach one leaves it empty. */
export const renderDisk = (d: Disk) => {
  const single = !d.multiAttach ? d.attachments[0] : undefined;
  return {
    DiskId: d.diskId,
    DiskName: d.diskName,
    RegionId: d.regionId,
    ZoneId: d.zoneId,
    Status: d.status,
    Type: d.type,
    Category: d.category,
    Size: d.size,
    Portable: d.type === 'data',
    MultiAttach: d.multiAttach ? 'Enabled' : 'Disabled',
    InstanceId: single?.instanceId ?? '',
    Device: single?.device ?? '',
    AttachedTime: single ? ecsTime(single.attachedTime) : '',
    CreationTime: ecsTime(d.creationTime),
    DeleteWithInstance: d.type === 'system',
    Attachments: {
      Attachment: d.attachments.map((a) => ({
        InstanceId: a.instanceId,
        Device: a.device,
        AttachedTime: ecsTime(a.attachedTime),
      })),
    },
    Tags: tagList(d.tags),
  };
};
