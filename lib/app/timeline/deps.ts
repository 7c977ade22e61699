/** The timeline reads only. */
import type { NodeReads, WorkloadReads } from '../../ports/cluster.js';
import type { DepsWith } from '../shared/deps.js';

export type TimelineDeps = DepsWith<NodeReads & WorkloadReads>;
