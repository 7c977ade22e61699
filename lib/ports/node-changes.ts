import type { NodeView } from './cluster-views.js';

/** What happened to one Node: it was added or changed (as it is now), or deleted (as it was last). */
export interface NodeChange {
  readonly type: 'ADDED' | 'MODIFIED' | 'DELETED';
  readonly node: NodeView;
}

/** Following every Node of the cluster: what wakes the controller's health check instead of a poll. */
export interface NodeChanges {
  /**
   * Calls `onChange` for every Node added, changed or deleted, and with `null` when changes may have
   * been missed (the watch expired and was listed again), until `signal` aborts; then resolves. A watch
   * the server or the network closed is resumed from the last version seen. Rejects when the watch is
   * refused (RBAC).
   */
  followNodes(onChange: (change: NodeChange | null) => void, signal: AbortSignal): Promise<void>;
}
