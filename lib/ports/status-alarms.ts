/**
 * The EC2 status-check alarms the fencer keeps for a cluster's nodes, one per instance. Their state
 * changes reach the event router through EventBridge (source `aws.cloudwatch`), which fences the node
 * whose instance failed. Implemented by `lib/adapters/aws-cloudwatch`.
 */
export interface StatusAlarms {
  /** The instances that have one of this cluster's alarms. */
  listInstances(): Promise<readonly string[]>;
  /** Creates (or updates) the alarm of one instance. */
  put(instanceId: string): Promise<void>;
  /** Deletes the alarms of these instances. */
  remove(instanceIds: readonly string[]): Promise<void>;
}
