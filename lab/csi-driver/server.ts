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
import { PublishConflict, VolumeMissing } from './publish-errors.js';

/** Where the controller attaches and detaches volumes: EBS in the EC2 emulator, or disks in the ECS one. */
export interface VolumeBackend {
  attach(volumeId: string, nodeId: string): Promise<string>;
  detach(volumeId: string, nodeId: string): Promise<unknown>;
}

/**
 * What the lab's controller stands in for: a cloud's disk driver (EBS, Alibaba disk: publish attaches in
 * the emulator), or `rbd`, ceph-csi's RBD controller, whose ControllerPublish and ControllerUnpublish are
 * no-ops (the image is mapped by the node plugin; nothing on the controller side holds or releases it).
 */
export type CsiControllerMode = 'cloud' | 'rbd';

export interface CsiControllerOptions {
  readonly protoPath: string;
  readonly socketPath: string;
  readonly driverName: string;
  readonly volumes: VolumeBackend;
  /** One JSON line per RPC, so tests and the timeline can read what the driver did. */
  readonly log: (entry: Record<string, unknown>) => void;
}

type Handler = (
  call: ServerUnaryCall<Record<string, unknown>, unknown>,
  callback: sendUnaryData<unknown>,
) => void;

const serviceOf = (root: GrpcObject, name: string) =>
  ((root.csi as GrpcObject).v1 as GrpcObject)[name] as ServiceClientConstructor;

/**
 * A CSI controller plugin (Identity + Controller with PUBLISH_UNPUBLISH_VOLUME) that attaches EBS volumes
 * in the EC2 emulator, or Alibaba cloud disks in the ECS emulator (the node ID is the instance ID, as with
 * the EBS and the Alibaba disk CSI drivers), or answers like ceph-csi's RBD controller, whose publish and
 * unpublish do nothing (node ID = node name).
 */
export async function serveCsiController(options: CsiControllerOptions): Promise<Server> {
  const definition = loadSync(options.protoPath, {
    keepCase: true,
    longs: String,
    enums: String,
    defaults: true,
    oneofs: true,
  });
  const root = loadPackageDefinition(definition);
  const server = new Server();
  const ok = (callback: sendUnaryData<unknown>, value: unknown) => callback(null, value);
  const identity: Record<string, Handler> = {
    GetPluginInfo: (_c, cb) => ok(cb, { name: options.driverName, vendor_version: 'lab' }),
    GetPluginCapabilities: (_c, cb) =>
      ok(cb, { capabilities: [{ service: { type: 'CONTROLLER_SERVICE' } }] }),
    Probe: (_c, cb) => ok(cb, { ready: { value: true } }),
  };
  const rpc =
    (name: string, body: (req: Record<string, unknown>) => Promise<unknown>): Handler =>
    (call, cb) => {
      const req = call.request;
      const started = Date.now();
      body(req).then(
        (value) => {
          options.log({
            rpc: name,
            volume: req.volume_id,
            node: req.node_id,
            result: 'ok',
            ms: Date.now() - started,
          });
          cb(null, value);
        },
        (err: Error) => {
          const code =
            err instanceof PublishConflict
              ? status.FAILED_PRECONDITION
              : err instanceof VolumeMissing
                ? status.NOT_FOUND
                : status.INTERNAL;
          options.log({
            rpc: name,
            volume: req.volume_id,
            node: req.node_id,
            result: status[code],
            message: err.message,
            ms: Date.now() - started,
          });
          cb({ code, details: err.message });
        },
      );
    };
  const controller: Record<string, Handler> = {
    ControllerGetCapabilities: (_c, cb) =>
      ok(cb, { capabilities: [{ rpc: { type: 'PUBLISH_UNPUBLISH_VOLUME' } }] }),
    ControllerPublishVolume: rpc('ControllerPublishVolume', async (req) => {
      const device = await options.volumes.attach(String(req.volume_id), String(req.node_id));
      return { publish_context: { devicePath: device } };
    }),
    ControllerUnpublishVolume: rpc('ControllerUnpublishVolume', async (req) => {
      await options.volumes.detach(String(req.volume_id), String(req.node_id));
      return {};
    }),
  };
  server.addService(serviceOf(root, 'Identity').service, identity);
  server.addService(serviceOf(root, 'Controller').service, controller);
  await new Promise<void>((resolve, reject) =>
    server.bindAsync(`unix://${options.socketPath}`, ServerCredentials.createInsecure(), (err) =>
      err ? reject(err) : resolve(),
    ),
  );
  return server;
}
