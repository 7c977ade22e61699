/** Diagnose reads only. */
import type { NodeReads, WorkloadReads } from '../../ports/cluster.js';
import type { DepsWith } from '../shared/deps.js';

export type DiagnoseDeps = DepsWith<NodeReads & WorkloadReads>;
