/**
 * A STAND-IN for ceph-csi's csi-addons side (the `csi-addons` sidecar in front of ceph-csi's
 * controller plugin). ceph-csi cannot be built here (the Go module proxy this machine reaches does not
 * serve it, and its RBD code links librados and librbd through cgo), so this serves the two services
 * the real csi-addons controller calls, and does what ceph-csi's NetworkFence does with the lab's Ceph: for
 * each CIDR, `osd blocklist range add <cidr>` with a five-year expiry (ceph-csi's), and on unfence
 * `osd blocklist range rm <cidr>`. Everything around it is real: the csi-addons controller, its CRDs,
 * the API server, Ceph.
 *
 * It keeps a log of every request it served, so tests can say what the fencer asked of csi-addons,
 * and it can be told to fail, as a driver whose Ceph credentials were revoked does.
 */
import { join } from 'node:path';
import {
  type GrpcObject,
  loadPackageDefinition,
  Server,
  ServerCredentials,
  type ServerUnaryCall,
  type ServiceClientConstructor,
  type sendUnaryData,
  status,
} from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';
import type { CephAdmin } from '../ceph/admin-client.js';

/** ceph-csi's blocklist expiry for a fence: five years (the fence is lifted by unfence, not by time). */
export const FENCE_EXPIRE_SECONDS = 157_784_760;

export interface FenceRequestLog {
  readonly op: 'fence' | 'unfence';
  readonly cidrs: readonly string[];
  readonly parameters: Readonly<Record<string, string>>;
  readonly secret: string;
  readonly ok: boolean;
  readonly at: number;
}

export interface FenceSidecar {
  readonly endpoint: string;
  readonly requests: readonly FenceRequestLog[];
  /** From now on every fence and unfence fails with `why` (undefined: they work again). */
  failWith(why: string | undefined): void;
  stop(): Promise<void>;
}

interface NetworkFenceRequest {
  readonly parameters: Record<string, string>;
  readonly secret_name: string;
  readonly secret_namespace: string;
  readonly cidrs: string[];
}

export interface FenceSidecarOptions {
  readonly protoDir: string;
  readonly host: string;
  readonly driver: string;
  readonly admin: CephAdmin;
  /** The clusterID the driver serves: a request naming another is refused, as ceph-csi refuses it. */
  readonly clusterId: string;
}

export async function startFenceSidecar(options: FenceSidecarOptions): Promise<FenceSidecar> {
  const load = (file: string) =>
    loadPackageDefinition(
      loadSync(join(options.protoDir, file), {
        keepCase: true,
        longs: String,
        enums: String,
        defaults: true,
        oneofs: true,
      }),
    );
  const identity = (load('identity.proto').identity as GrpcObject).Identity as ServiceClientConstructor;
  const fence = (load('networkfence.proto').proto as GrpcObject).NetworkFence as ServiceClientConstructor;
  const requests: FenceRequestLog[] = [];
  let failure: string | undefined;

  const run = async (op: 'fence' | 'unfence', request: NetworkFenceRequest): Promise<void> => {
    const entry = {
      op,
      cidrs: request.cidrs,
      parameters: request.parameters,
      secret: `${request.secret_namespace}/${request.secret_name}`,
      at: Date.now(),
    };
    try {
      if (failure) throw new Error(failure);
      if (request.parameters.clusterID !== options.clusterId) {
        throw new Error(`clusterID ${JSON.stringify(request.parameters.clusterID)} is not this driver's`);
      }
      for (const cidr of request.cidrs) {
        await options.admin.mon(
          op === 'fence'
            ? { prefix: 'osd blocklist', range: 'range', blocklistop: 'add', addr: cidr }
            : { prefix: 'osd blocklist', range: 'range', blocklistop: 'rm', addr: cidr },
          undefined,
          op === 'fence' ? { expire: FENCE_EXPIRE_SECONDS } : undefined,
        );
      }
      requests.push({ ...entry, ok: true });
    } catch (error) {
      requests.push({ ...entry, ok: false });
      throw error;
    }
  };

  const unary =
    (op: 'fence' | 'unfence') =>
    (call: ServerUnaryCall<NetworkFenceRequest, unknown>, callback: sendUnaryData<unknown>): void => {
      run(op, call.request).then(
        () => callback(null, {}),
        (error: Error) => callback({ code: status.INTERNAL, details: error.message }),
      );
    };

  const server = new Server();
  server.addService(identity.service, {
    GetIdentity: (_: unknown, cb: sendUnaryData<unknown>) =>
      cb(null, { name: options.driver, vendor_version: 'lab-stand-in', manifest: {} }),
    GetCapabilities: (_: unknown, cb: sendUnaryData<unknown>) =>
      cb(null, {
        capabilities: [
          { service: { type: 'CONTROLLER_SERVICE' } },
          { network_fence: { type: 'NETWORK_FENCE' } },
        ],
      }),
    Probe: (_: unknown, cb: sendUnaryData<unknown>) => cb(null, { ready: { value: true } }),
  });
  server.addService(fence.service, {
    FenceClusterNetwork: unary('fence'),
    UnFenceClusterNetwork: unary('unfence'),
    GetFenceClients: (_: unknown, cb: sendUnaryData<unknown>) =>
      cb({ code: status.UNIMPLEMENTED, details: 'not offered' }),
  });
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync(`${options.host}:0`, ServerCredentials.createInsecure(), (error, bound) =>
      error ? reject(error) : resolve(bound),
    ),
  );
  return {
    endpoint: `${options.host}:${port}`,
    requests,
    failWith: (why) => {
      failure = why;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.tryShutdown(() => resolve());
      }),
  };
}
