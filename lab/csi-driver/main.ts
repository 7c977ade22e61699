/**
 * Entry point of the lab's CSI controller process:
 *   node --import tsx lab/csi-driver/main.ts --socket S --proto P --driver D --ec2-endpoint URL --region R
 *   node --import tsx lab/csi-driver/main.ts --socket S --proto P --driver D --ecs-endpoint URL --region R
 *     (ECS: the AccessKey in ALIBABA_CLOUD_ACCESS_KEY_ID/SECRET; DISK_FORCE_DETACHED=false turns the
 *     Alibaba driver's detach-before-attach off, as on the real driver)
 *   node --import tsx lab/csi-driver/main.ts --socket S --proto P --driver rbd.csi.ceph.com --mode rbd
 */
import { parseArgs } from 'node:util';
import { serveCsiController, type VolumeBackend } from './server.js';

const { values } = parseArgs({
  options: {
    socket: { type: 'string' },
    proto: { type: 'string' },
    driver: { type: 'string' },
    'ec2-endpoint': { type: 'string' },
    'ecs-endpoint': { type: 'string' },
    region: { type: 'string' },
    mode: { type: 'string', default: 'ebs' },
  },
});
const mode = values.mode === 'rbd' ? 'rbd' : 'cloud';
const required =
  mode === 'rbd'
    ? (['socket', 'proto', 'driver'] as const)
    : (['socket', 'proto', 'driver', 'region'] as const);
for (const key of required) {
  if (!values[key]) {
    console.error(`lab-csi-controller: missing --${key}`);
    process.exit(2);
  }
}
if (mode === 'cloud' && !values['ec2-endpoint'] === !values['ecs-endpoint']) {
  console.error('lab-csi-controller: give exactly one of --ec2-endpoint and --ecs-endpoint');
  process.exit(2);
}
const log = (entry: Record<string, unknown>) =>
  console.log(JSON.stringify({ ts: new Date().toISOString(), ...entry }));

/** ceph-csi's RBD controller: "dummy" publish and unpublish (attachRequired only gives RWO scheduling). */
const RBD_NO_OP: VolumeBackend = { attach: async () => '', detach: async () => undefined };

/** Each cloud's SDK is loaded only by the controller that serves it: a lab starts dozens of these. */
async function backend(): Promise<VolumeBackend> {
  if (mode === 'rbd') return RBD_NO_OP;
  const region = String(values.region);
  if (values['ecs-endpoint']) {
    const { createEcsClient, ecsCredentialsFromEnv } = await import(
      '../../lib/adapters/alicloud-ecs/index.js'
    );
    const { attachDisk, detachDisk } = await import('./ecs-disks.js');
    const credentials = ecsCredentialsFromEnv(process.env);
    if (!credentials) throw new Error('lab-csi-controller: ALIBABA_CLOUD_ACCESS_KEY_ID/SECRET are not set');
    const ecs = {
      client: createEcsClient({ region, endpoint: values['ecs-endpoint'], credentials }),
      region,
      forceDetach: process.env.DISK_FORCE_DETACHED !== 'false',
      log,
    };
    return { attach: (v, n) => attachDisk(ecs, v, n), detach: (v, n) => detachDisk(ecs, v, n) };
  }
  const { EC2Client } = await import('@aws-sdk/client-ec2');
  const { attach, detach } = await import('./ebs-volumes.js');
  const ec2 = new EC2Client({
    endpoint: values['ec2-endpoint'],
    region,
    credentials: { accessKeyId: 'testing', secretAccessKey: 'testing' },
  });
  return { attach: (v, n) => attach(ec2, v, n), detach: (v, n) => detach(ec2, v, n) };
}

const server = await serveCsiController({
  protoPath: String(values.proto),
  socketPath: String(values.socket),
  driverName: String(values.driver),
  volumes: await backend(),
  log,
});
log({ event: 'listening', socket: values.socket });
const shutdown = () => server.tryShutdown(() => process.exit(0));
process.on('SIGTERM', shutdown);
process.on('SIGINT', shutdown);
