import type { EC2Client } from '@aws-sdk/client-ec2';
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
import { attach, detach, PublishConflict, VolumeMissing } from './ebs-volumes.js';

/**
 * What the controller stands in for: `ebs` attaches and detaches in the EC2 emulator; `rbd` is ceph-csi's
 * RBD controller, whose ControllerPublish and ControllerUnpublish are no-ops (the image is mapped by the
 * node plugin; nothing on the controller side holds or releases it).
 */
export type CsiControllerMode = 'ebs' | 'rbd';

export interface CsiControllerOptions {
  readonly protoPath: string;
  readonly socketPath: string;
  readonly driverName: string;
  readonly mode?: CsiControllerMode;
  /** Needed in `ebs` mode. */
  readonly ec2?: EC2Client;
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
 * A CSI controller plugin (Identity + Controller with PUBLISH_UNPUBLISH_VOLUME). In `ebs` mode it attaches
 * EBS volumes in the EC2 emulator, the node ID being the EC2 instance ID as with the EBS CSI driver; in
 * `rbd` mode it answers like ceph-csi's RBD controller (node ID = node name; publish does nothing).
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
  const ec2 = (): EC2Client => {
    if (!options.ec2) throw new Error('the ebs mode needs an EC2 client');
    return options.ec2;
  };
  const publish =
    options.mode === 'rbd'
      ? // ceph-csi: "dummy" publish/unpublish, so that attachRequired gives RWO scheduling; no lock is taken.
        { publish: async () => ({}), unpublish: async () => ({}) }
      : {
          publish: async (req: Record<string, unknown>) => ({
            publish_context: { devicePath: await attach(ec2(), String(req.volume_id), String(req.node_id)) },
          }),
          unpublish: async (req: Record<string, unknown>) => {
            await detach(ec2(), String(req.volume_id), String(req.node_id));
            return {};
          },
        };
  const controller: Record<string, Handler> = {
    ControllerGetCapabilities: (_c, cb) =>
      ok(cb, { capabilities: [{ rpc: { type: 'PUBLISH_UNPUBLISH_VOLUME' } }] }),
    ControllerPublishVolume: rpc('ControllerPublishVolume', publish.publish),
    ControllerUnpublishVolume: rpc('ControllerUnpublishVolume', publish.unpublish),
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
