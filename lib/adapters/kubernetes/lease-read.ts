/**
 * A node's Lease read with the API server's clock. The Lease's age decides whether a node may be
 * fenced (SAFETY.md rule 2), so it is measured on the one clock every party shares: the API server's
 * `Date` header on the answer that carried the Lease (or said there is none). A fencer whose own clock
 * runs fast cannot make a fresh Lease look old.
 */
import type { V1Lease } from '@kubernetes/client-node';
import { KubernetesApiError } from '../../domain/errors.js';
import type { LeaseRead } from '../../ports/cluster.js';
import { type ApiClient, ApiStatusError } from './api/api-client.js';
import { isNotFound, toKubernetesApiError } from './errors.js';
import { toLeaseView } from './views.js';

const OPERATION = 'readNamespacedLease';

const servedAt = (path: string, serverTime: Date | undefined): string => {
  if (serverTime) return serverTime.toISOString();
  throw new KubernetesApiError(
    `Kubernetes ${OPERATION} ${path}: the API server's answer had no Date header; a Lease's age is measured on the API server's clock only`,
  );
};

/** GETs the Lease at `path`; a 404 is "no Lease", still stamped with the server's time. */
export async function readLease(api: ApiClient, path: string): Promise<LeaseRead> {
  try {
    const { body, serverTime } = await api.exchange<V1Lease>({ method: 'GET', path });
    return { lease: toLeaseView(body), servedAt: servedAt(path, serverTime) };
  } catch (error) {
    if (error instanceof KubernetesApiError) throw error;
    if (isNotFound(error)) {
      return {
        lease: null,
        servedAt: servedAt(path, error instanceof ApiStatusError ? error.serverTime : undefined),
      };
    }
    throw toKubernetesApiError(OPERATION, path, error);
  }
}
