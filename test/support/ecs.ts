import { ecsDiskAttachments, ecsInstanceStatus } from '../../lab/alibaba-nodes.js';
import type { Lab, LabEcs } from '../../lab/lab.js';

/** The lab's ECS; fails loudly in a lab of the other flavour. */
export const ecsOf = (lab: Lab): LabEcs => {
  if (!lab.ecs) throw new Error('this test needs startLab({ provider: "alibaba" })');
  return lab.ecs;
};

/** The instance's ECS status (`Running`, `Stopping`, `Stopped`, ...). */
export const ecsStatus = (lab: Lab, instanceId: string): Promise<string> =>
  ecsInstanceStatus(ecsOf(lab).client, lab.region, instanceId);

/** Where ECS says a disk is attached, as plain data to compare. */
export const diskAttachments = (lab: Lab, diskId: string) =>
  ecsDiskAttachments(ecsOf(lab).client, lab.region, diskId);

/** The fencer's own ECS calls (signed with its key), as `Action code`, oldest first. */
export async function fencerEcsCalls(
  lab: Lab,
): Promise<{ action: string; code?: string; params: Record<string, string> }[]> {
  const ecs = ecsOf(lab);
  return (await ecs.admin.requests())
    .filter((r) => r.accessKeyId === ecs.fencerKey.accessKeyId)
    .map((r) => ({ action: r.action, code: r.code, params: { ...r.params } }));
}

/** The fencer's Stop* calls to ECS that name `instanceId`. */
export const fencerStopsOf = async (lab: Lab, instanceId: string) =>
  (await fencerEcsCalls(lab)).filter(
    (c) => c.action.startsWith('Stop') && Object.values(c.params).includes(instanceId),
  );
