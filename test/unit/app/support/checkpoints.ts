/** The checkpoints of one test run, sealed as the deployed runners seal them (lib/config/run-checkpoint.ts). */
import { type CheckpointCodec, nodeCheckpoints } from '../../../../lib/app/fence/run-checkpoint.js';
import { runCheckpointCodec } from '../../../../lib/config/run-checkpoint.js';

/** The test run's secret, as a Function Compute task or a Step Functions execution would carry one. */
export const TEST_SEAL = 'test-seal-0123456789abcdef0123456789abcdef';

export const testCodec: CheckpointCodec = runCheckpointCodec(TEST_SEAL);

export const sealedCheckpoints = (
  cluster: Parameters<typeof nodeCheckpoints>[0],
  now?: () => Date,
): ReturnType<typeof nodeCheckpoints> => nodeCheckpoints(cluster, testCodec, now);
