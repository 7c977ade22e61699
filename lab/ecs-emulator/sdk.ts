/** The real SDK pointed at an emulator, for the lab's own calls and tests. */
import { createEcsClient, type EcsClient } from '../../lib/adapters/alicloud-ecs/index.js';
import type { EcsEmulator, Principal } from './index.js';

/** An ECS client signed with `key` (the lab's by default), talking to the emulator over HTTP. */
export const ecsClientFor = (
  emulator: Pick<EcsEmulator, 'endpoint' | 'region' | 'labKey'>,
  key: Principal = emulator.labKey,
): EcsClient => createEcsClient({ region: emulator.region, endpoint: emulator.endpoint, credentials: key });
