/** The sweep: reads; remediating, it deletes a zombie attachment (SAFETY.md rule 5) and records Events. */
import type {
  FencingClaimsLedger,
  NodeEvents,
  NodeReads,
  NodeWrites,
  WorkloadReads,
} from '../../ports/cluster.js';
import type { DepsWith } from '../shared/deps.js';

export type SweepDeps = DepsWith<
  NodeReads & WorkloadReads & FencingClaimsLedger & NodeEvents & Pick<NodeWrites, 'deleteVolumeAttachment'>
>;
