import type { ApiEndpoint } from '../api/endpoint.js';

/** A way into the cluster's API server, and until when it holds. */
export interface Connection {
  readonly endpoint: ApiEndpoint;
  /** Epoch ms after which a new connection must be made; null when it does not expire. */
  readonly expiresAt: number | null;
}

/** Makes connections; called again once the last one expired. */
export type Connector = () => Promise<Connection>;
