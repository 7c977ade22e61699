import type { V1Lease } from '@kubernetes/client-node';
import { isFencerError } from '../../domain/errors.js';
import type { ClaimResult, FencingClaim } from '../../ports/cluster.js';
import type { ApiClient } from './api/api-client.js';
import { apiPaths, MERGE_PATCH } from './api/paths.js';
import {
  CLAIMS_ANNOTATION,
  type ClaimLimits,
  type Claims,
  decideClaim,
  liveClaims,
  parseClaims,
  serializeClaims,
  withoutClaim,
} from './claims.js';
import { isConflict, isNotFound, toKubernetesApiError } from './errors.js';
import { type ConflictRetryPolicy, retryOnConflict } from './retry.js';

/** Settings of {@link ClaimLease}. */
export interface ClaimLeaseOptions {
  readonly namespace: string;
  readonly name: string;
  readonly fieldManager: string;
  readonly retry: ConflictRetryPolicy;
  readonly now: () => Date;
}

/** The claims as read, and the version a write must match. */
interface ReadClaims {
  readonly resourceVersion: string;
  readonly claims: Claims;
}

/**
 * Fencing claims in one coordination.k8s.io/v1 Lease shared by every fencer of the cluster. Each
 * claim or release reads the Lease, decides, and writes back with the `resourceVersion` it read;
 * a concurrent writer makes the write fail with 409 and the whole decision is taken again from a
 * fresh read. So two runs can never both see room for the last in-flight slot (safety.md rule 4).
 * Claims are never dry-run: they are the fencer's own bookkeeping, not a change to the workload.
 */
export class ClaimLease {
  readonly #api: ApiClient;
  readonly #options: ClaimLeaseOptions;

  constructor(api: ApiClient, options: ClaimLeaseOptions) {
    this.#api = api;
    this.#options = options;
  }

  /** Claims (or renews) `node` for `runId` within `limits`. */
  claim(node: string, runId: string, limits: ClaimLimits): Promise<ClaimResult> {
    return retryOnConflict(
      'claimFencing',
      this.#describe(),
      async () => {
        const read = await this.#readOrCreate();
        const { result, next } = decideClaim(read.claims, node, runId, limits, this.#options.now());
        if (next) await this.#write(read.resourceVersion, next);
        return result;
      },
      this.#options.retry,
    );
  }

  /** Drops `node`'s claim if `runId` holds it; another run's claim, or none, is left alone. */
  release(node: string, runId: string): Promise<void> {
    return retryOnConflict(
      'releaseFencing',
      this.#describe(),
      async () => {
        const read = await this.#read();
        const next = read && withoutClaim(read.claims, node, runId);
        if (read && next) await this.#write(read.resourceVersion, next);
      },
      this.#options.retry,
    );
  }

  /** The live claims, by node name; none while no fencer has created the Lease. */
  async list(ttlSeconds: number): Promise<FencingClaim[]> {
    let read: ReadClaims | undefined;
    try {
      read = await this.#read();
    } catch (error) {
      throw isFencerError(error) ? error : toKubernetesApiError('listFencingClaims', this.#describe(), error);
    }
    const live = liveClaims(read?.claims ?? {}, this.#options.now(), ttlSeconds);
    return Object.entries(live)
      .map(([node, claim]) => ({ node, runId: claim.runId, renewedAt: claim.renewedAt }))
      .sort((a, b) => a.node.localeCompare(b.node));
  }

  #path(): string {
    return apiPaths.lease(this.#options.namespace, this.#options.name);
  }

  #describe(): string {
    return `lease/${this.#options.namespace}/${this.#options.name}`;
  }

  #toRead(lease: V1Lease): ReadClaims {
    return {
      resourceVersion: lease.metadata?.resourceVersion ?? '',
      claims: parseClaims(lease.metadata?.annotations?.[CLAIMS_ANNOTATION], this.#describe()),
    };
  }

  async #read(): Promise<ReadClaims | undefined> {
    try {
      return this.#toRead(await this.#api.call({ method: 'GET', path: this.#path() }));
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  /** The first fencer to claim creates the Lease; losing that race to another is fine: read theirs. */
  async #readOrCreate(): Promise<ReadClaims> {
    const existing = await this.#read();
    if (existing) return existing;
    const { namespace, name, fieldManager } = this.#options;
    try {
      const body: V1Lease = {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: {
          name,
          namespace,
          labels: { 'app.kubernetes.io/managed-by': fieldManager },
          annotations: { [CLAIMS_ANNOTATION]: serializeClaims({}) },
        },
        spec: {},
      };
      const created = await this.#api.call<V1Lease>({
        method: 'POST',
        path: apiPaths.leases(namespace),
        query: { fieldManager },
        body,
      });
      return this.#toRead(created);
    } catch (error) {
      if (!isConflict(error)) throw error;
    }
    const raced = await this.#read();
    if (raced) return raced;
    // Created and deleted in between: report a conflict so the whole attempt starts over.
    throw Object.assign(new Error(`${this.#describe()} vanished right after it was created`), {
      statusCode: 409,
    });
  }

  async #write(resourceVersion: string, claims: Claims): Promise<void> {
    await this.#api.call({
      method: 'PATCH',
      path: this.#path(),
      query: { fieldManager: this.#options.fieldManager },
      body: { metadata: { resourceVersion, annotations: { [CLAIMS_ANNOTATION]: serializeClaims(claims) } } },
      contentType: MERGE_PATCH,
    });
  }
}
