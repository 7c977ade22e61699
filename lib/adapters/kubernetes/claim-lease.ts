import type { V1Lease } from '@kubernetes/client-node';
import { isFencerError } from '../../domain/errors.js';
import type { ClaimResult, FencingClaims } from '../../ports/cluster.js';
import { type ApiClient, ApiStatusError } from './api/api-client.js';
import { apiPaths, MERGE_PATCH } from './api/paths.js';
import {
  CLAIMS_ANNOTATION,
  type Claims,
  DEFAULT_MAX_IN_FLIGHT,
  decideClaim,
  liveClaims,
  MAX_IN_FLIGHT_ANNOTATION,
  parseClaims,
  parseMaxInFlight,
  serializeClaims,
  withoutClaim,
} from './claims.js';
import { isConflict, isNotFound, KubernetesApiError, toKubernetesApiError } from './errors.js';
import { type ConflictRetryPolicy, retryOnConflict } from './retry.js';

/** Settings of {@link ClaimLease}. */
export interface ClaimLeaseOptions {
  readonly namespace: string;
  readonly name: string;
  readonly fieldManager: string;
  readonly retry: ConflictRetryPolicy;
}

/** The claims as read, the version a write must match, the cluster's limit and the server's clock. */
interface ReadClaims {
  readonly resourceVersion: string;
  readonly claims: Claims;
  readonly maxInFlight: number;
  readonly serverTime: Date;
}

/**
 * Fencing claims in one coordination.k8s.io/v1 Lease shared by every fencer of the cluster. Each
 * claim or release reads the Lease, decides, and writes back with the `resourceVersion` it read;
 * a concurrent writer makes the write fail with 409 and the whole decision is taken again from a
 * fresh read. So two runs can never both see room for the last in-flight slot (SAFETY.md rule 4).
 * Claims are never dry-run: they are the fencer's own bookkeeping, not a change to the workload (a dry
 * run takes none). Times are the API server's (the `Date` of the read the decision is based on), and the
 * in-flight limit is the one the Lease carries: every fencer of the cluster sees the same cap.
 */
export class ClaimLease {
  readonly #api: ApiClient;
  readonly #options: ClaimLeaseOptions;

  constructor(api: ApiClient, options: ClaimLeaseOptions) {
    this.#api = api;
    this.#options = options;
  }

  /** Claims (or renews) `node` for `runId` within the cluster's limit. */
  claim(node: string, runId: string, ttlSeconds: number): Promise<ClaimResult> {
    return retryOnConflict(
      'claimFencing',
      this.#describe(),
      async () => {
        const read = await this.#readOrCreate();
        const limits = { maxInFlight: read.maxInFlight, ttlSeconds };
        const { result, next } = decideClaim(read.claims, node, runId, limits, read.serverTime);
        if (next) await this.#write(read.resourceVersion, { [CLAIMS_ANNOTATION]: serializeClaims(next) });
        return result;
      },
      this.#options.retry,
    );
  }

  /** Sets the cluster's in-flight limit on the Lease (creating it if needed). */
  async setMaxInFlight(limit: number): Promise<void> {
    const value = String(parseMaxInFlight(String(limit), this.#describe()));
    await retryOnConflict(
      'setMaxInFlight',
      this.#describe(),
      async () => {
        const read = await this.#readOrCreate();
        await this.#write(read.resourceVersion, { [MAX_IN_FLIGHT_ANNOTATION]: value });
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
        if (read && next)
          await this.#write(read.resourceVersion, { [CLAIMS_ANNOTATION]: serializeClaims(next) });
      },
      this.#options.retry,
    );
  }

  /** The live claims, by node name, and the cluster's limit; none while no fencer has created the Lease. */
  async list(ttlSeconds: number): Promise<FencingClaims> {
    let read: ReadClaims | { readonly absentAt: Date };
    try {
      read = await this.#readOrAbsent();
    } catch (error) {
      throw isFencerError(error) ? error : toKubernetesApiError('listFencingClaims', this.#describe(), error);
    }
    if ('absentAt' in read) {
      return { claims: [], maxInFlight: DEFAULT_MAX_IN_FLIGHT, serverTime: read.absentAt.toISOString() };
    }
    const live = liveClaims(read.claims, read.serverTime, ttlSeconds);
    const claims = Object.entries(live)
      .map(([node, claim]) => ({ node, runId: claim.runId, renewedAt: claim.renewedAt }))
      .sort((a, b) => a.node.localeCompare(b.node));
    return { claims, maxInFlight: read.maxInFlight, serverTime: read.serverTime.toISOString() };
  }

  #path(): string {
    return apiPaths.lease(this.#options.namespace, this.#options.name);
  }

  #describe(): string {
    return `lease/${this.#options.namespace}/${this.#options.name}`;
  }

  #toRead(lease: V1Lease, serverTime: Date | undefined): ReadClaims {
    const annotations = lease.metadata?.annotations;
    return {
      resourceVersion: lease.metadata?.resourceVersion ?? '',
      claims: parseClaims(annotations?.[CLAIMS_ANNOTATION], this.#describe()),
      maxInFlight: parseMaxInFlight(annotations?.[MAX_IN_FLIGHT_ANNOTATION], this.#describe()),
      serverTime: this.#requireServerTime(serverTime),
    };
  }

  /** Without the server's clock a claim cannot be judged: an error, never the local clock. */
  #requireServerTime(serverTime: Date | undefined): Date {
    if (serverTime) return serverTime;
    throw new KubernetesApiError(
      `Kubernetes ${this.#describe()}: the API server's answer had no Date header; claims are judged on its clock only`,
    );
  }

  async #readOrAbsent(): Promise<ReadClaims | { readonly absentAt: Date }> {
    try {
      const { body, serverTime } = await this.#api.exchange<V1Lease>({ method: 'GET', path: this.#path() });
      return this.#toRead(body, serverTime);
    } catch (error) {
      if (isNotFound(error) && error instanceof ApiStatusError) {
        return { absentAt: this.#requireServerTime(error.serverTime) };
      }
      throw error;
    }
  }

  async #read(): Promise<ReadClaims | undefined> {
    const read = await this.#readOrAbsent();
    return 'absentAt' in read ? undefined : read;
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
      const created = await this.#api.exchange<V1Lease>({
        method: 'POST',
        path: apiPaths.leases(namespace),
        query: { fieldManager },
        body,
      });
      return this.#toRead(created.body, created.serverTime);
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

  async #write(resourceVersion: string, annotations: Readonly<Record<string, string>>): Promise<void> {
    await this.#api.call({
      method: 'PATCH',
      path: this.#path(),
      query: { fieldManager: this.#options.fieldManager },
      body: { metadata: { resourceVersion, annotations } },
      contentType: MERGE_PATCH,
    });
  }
}
