/** The lab's own vocabulary, shared by lab.ts and the clouds it starts (lab-clouds.ts). */
import type { EcsClient } from '../lib/adapters/alicloud-ecs/index.js';
import type { EcsEmulatorAdmin, Principal } from './ecs-emulator/index.js';
import type { SimulatedNode } from './kubelets.js';

/** Which cloud the lab's nodes, instances and disks belong to. */
export type LabProvider = 'aws' | 'alibaba';

/**
 * A lab worker: its Node name, its instance (id, zone, providerID) and the instance's private IP and
 * DNS name as the emulator assigned them (on ECS: its host name), which its kubelet posts as
 * `status.addresses`.
 */
export interface LabNode extends SimulatedNode {}

/** The lab's ECS (Alibaba-flavoured lab only). */
export interface LabEcs {
  readonly endpoint: string;
  readonly region: string;
  /** Signed with the lab's key: what the lab, its fixtures and its CSI driver use. */
  readonly client: EcsClient;
  /** The fencer's own key; faults can target its calls only. */
  readonly fencerKey: Principal;
  readonly admin: EcsEmulatorAdmin;
}
