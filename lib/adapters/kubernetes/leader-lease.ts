/**
 * The controller's leader Lease (lib/ports/leadership.ts) in a coordination.k8s.io/v1 Lease: the same
 * fields client-go's leader election writes (holderIdentity, leaseDurationSeconds, acquireTime,
 * renewTime, leaseTransitions), so `kubectl get lease` reads it as it reads any controller's. Every write
 * carries the resourceVersion it was decided on: two replicas can never both take the Lease.
 */
import type { V1Lease } from '@kubernetes/client-node';
import type { LeaderLock, LeaderRecord, ReadLeaderRecord } from '../../ports/leadership.js';
import type { ApiClient } from './api/api-client.js';
import { apiPaths, MERGE_PATCH } from './api/paths.js';
import { isConflict, isNotFound, toKubernetesApiError } from './errors.js';

export interface LeaderLeaseOptions {
  readonly namespace: string;
  readonly name: string;
  readonly fieldManager: string;
}

/** Lease times are MicroTime: RFC 3339 with microseconds. */
const microTime = (iso: string): string => iso.replace(/(\.\d{3})Z$/, '$1000Z');

const spec = (record: LeaderRecord): NonNullable<V1Lease['spec']> =>
  ({
    holderIdentity: record.holder,
    leaseDurationSeconds: record.leaseDurationSeconds,
    acquireTime: microTime(record.acquireTime),
    renewTime: microTime(record.renewTime),
    leaseTransitions: record.transitions,
  }) as unknown as NonNullable<V1Lease['spec']>;

const asIso = (value: unknown): string => {
  if (value instanceof Date) return value.toISOString();
  return typeof value === 'string' ? value : '';
};

function toRecord(lease: V1Lease): LeaderRecord | null {
  const s = lease.spec;
  if (!s?.holderIdentity) return null;
  return {
    holder: s.holderIdentity,
    leaseDurationSeconds: s.leaseDurationSeconds ?? 0,
    renewTime: asIso(s.renewTime),
    acquireTime: asIso(s.acquireTime),
    transitions: s.leaseTransitions ?? 0,
  };
}

export class LeaderLease implements LeaderLock {
  readonly #api: ApiClient;
  readonly #options: LeaderLeaseOptions;

  constructor(api: ApiClient, options: LeaderLeaseOptions) {
    this.#api = api;
    this.#options = options;
  }

  describe(): string {
    return `lease/${this.#options.namespace}/${this.#options.name}`;
  }

  async read(): Promise<ReadLeaderRecord | null> {
    try {
      const lease = await this.#api.call<V1Lease>({ method: 'GET', path: this.#path() });
      return { record: toRecord(lease), resourceVersion: lease.metadata?.resourceVersion ?? '' };
    } catch (error) {
      if (isNotFound(error)) return null;
      throw toKubernetesApiError('readLeaderLease', this.describe(), error);
    }
  }

  async create(record: LeaderRecord): Promise<boolean> {
    const { namespace, name, fieldManager } = this.#options;
    const body: V1Lease = {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name, namespace, labels: { 'app.kubernetes.io/managed-by': fieldManager } },
      spec: spec(record),
    };
    try {
      await this.#api.call({
        method: 'POST',
        path: apiPaths.leases(namespace),
        query: { fieldManager },
        body,
      });
      return true;
    } catch (error) {
      if (isConflict(error)) return false;
      throw toKubernetesApiError('createLeaderLease', this.describe(), error);
    }
  }

  async update(resourceVersion: string, record: LeaderRecord): Promise<boolean> {
    try {
      await this.#api.call({
        method: 'PATCH',
        path: this.#path(),
        query: { fieldManager: this.#options.fieldManager },
        body: { metadata: { resourceVersion }, spec: spec(record) },
        contentType: MERGE_PATCH,
      });
      return true;
    } catch (error) {
      if (isConflict(error) || isNotFound(error)) return false;
      throw toKubernetesApiError('updateLeaderLease', this.describe(), error);
    }
  }

  #path(): string {
    return apiPaths.lease(this.#options.namespace, this.#options.name);
  }
}
