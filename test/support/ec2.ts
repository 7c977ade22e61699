import { DescribeVolumesCommand } from '@aws-sdk/client-ec2';
import type { Lab } from '../../lab/lab.js';

/** Where the emulator says a volume is attached, as plain data to compare. */
export async function describeVolumeAttachments(
  lab: Lab,
  volumeId: string,
): Promise<{ instanceId: string; state: string }[]> {
  const out = await lab.ec2.client.send(new DescribeVolumesCommand({ VolumeIds: [volumeId] }));
  return (out.Volumes?.[0]?.Attachments ?? []).map((a) => ({
    instanceId: a.InstanceId ?? '',
    state: a.State ?? '',
  }));
}
