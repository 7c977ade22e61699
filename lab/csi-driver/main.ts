/**
 * Entry point of the lab's CSI controller process:
 *   node --import tsx lab/csi-driver/main.ts --socket S --proto P --driver D --ec2-endpoint URL --region R
 *   node --import tsx lab/csi-driver/main.ts --socket S --proto P --driver rbd.csi.ceph.com --mode rbd
 */
import { parseArgs } from 'node:util';
import { EC2Client } from '@aws-sdk/client-ec2';
import { serveCsiController } from './server.js';

const { values } = parseArgs({
  options: {
    socket: { type: 'string' },
    proto: { type: 'string' },
    driver: { type: 'string' },
    'ec2-endpoint': { type: 'string' },
    region: { type: 'string' },
    mode: { type: 'string', default: 'ebs' },
  },
});
const mode = values.mode === 'rbd' ? 'rbd' : 'ebs';
const required =
  mode === 'rbd'
    ? (['socket', 'proto', 'driver'] as const)
    : (['socket', 'proto', 'driver', 'ec2-endpoint', 'region'] as const);
for (const key of required) {
  if (!values[key]) {
    console.error(`lab-csi-controller: missing --${key}`);
    process.exit(2);
  }
}
const ec2 =
  mode === 'ebs'
    ? new EC2Client({
        endpoint: values['ec2-endpoint'],
        region: values.region,
        credentials: { accessKeyId: 'testing', secretAccessKey: 'testing' },
      })
    : undefined;
const log = (entry: Record<string, unknown>) =>
  console.log(JSON.stringify({ ts: new Date().toISOString(), ...entry }));
const server = await serveCsiController({
  protoPath: String(values.proto),
  socketPath: String(values.socket),
  driverName: String(values.driver),
  mode,
  ec2,
  log,
});
log({ event: 'listening', socket: values.socket });
const shutdown = () => server.tryShutdown(() => process.exit(0));
process.on('SIGTERM', shutdown);
process.on('SIGINT', shutdown);
