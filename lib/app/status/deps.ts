/** The status and limits commands: reads, and the cluster's in-flight limit. */
import type { FencingClaimsLedger, NodeReads, WorkloadReads } from '../../ports/cluster.js';
import type { DepsWith } from '../shared/deps.js';

export type StatusDeps = DepsWith<NodeReads & WorkloadReads & FencingClaimsLedger>;
