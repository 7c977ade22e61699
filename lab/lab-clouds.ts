/**
 * The cloud under a lab: EC2 in moto (EBS, ebs.csi.aws.com) or ECS in the ECS emulator (cloud disks,
 * diskplugin.csi.alibabacloud.com). Everything else in the lab is the same for both.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { EC2Client } from '@aws-sdk/client-ec2';
import {
  ALIBABA_DISK_DRIVER,
  ALIBABA_DISK_ZONE_KEY,
  createAckWorker,
  createCloudDisk,
  startEcsInstance,
  stopEcsInstance,
} from './alibaba-nodes.js';
import {
  createClusterInstance,
  createVolume,
  type Ec2Emulator,
  ec2ClientFor,
  startEc2Emulator,
  startInstance,
  stopInstance,
} from './ec2-emulator.js';
import { type Ec2FaultInjector, type Ec2Faults, startEc2Faults } from './ec2-faults/index.js';
import { startEcsEmulator } from './ecs-emulator/index.js';
import { ecsClientFor } from './ecs-emulator/sdk.js';
import type { LabEcs, LabNode, LabProvider } from './lab-types.js';

/** What the lab needs from its cloud. */
export interface LabCloud {
  readonly provider: LabProvider;
  readonly region: string;
  readonly csiDriver: string;
  readonly volumeTopologyKey: string;
  readonly component: { readonly name: string; readonly pid: number; readonly logFile: string };
  /** Environment for the fencer CLI: the endpoint, region and the fencer's credentials. */
  readonly fencerEnv: Readonly<Record<string, string>>;
  readonly ec2?: { readonly endpoint: string; readonly region: string; readonly client: EC2Client };
  readonly ec2Faults?: Ec2Faults;
  readonly ecs?: LabEcs;
  /** What the CSI controller needs to reach the cloud. */
  readonly csi: {
    readonly emulator?: Ec2Emulator;
    readonly ecs?: { endpoint: string; region: string; key: LabEcs['fencerKey'] };
  };
  createWorker(input: {
    readonly cluster: string;
    readonly zone: string;
    readonly name: string;
  }): Promise<LabNode>;
  createVolume(input: {
    readonly zone: string;
    readonly sizeGiB: number;
    readonly cluster: string;
  }): Promise<string>;
  stopInstance(instanceId: string): Promise<void>;
  startInstance(instanceId: string): Promise<void>;
  stop(): Promise<void>;
}

/** EC2 in moto, with the fault injector in front of it for the fencer's calls. */
export async function startAwsCloud(options: {
  runDir: string;
  pidDir: string;
  region: string;
}): Promise<LabCloud> {
  const emulator = await startEc2Emulator({ runDir: options.runDir, region: options.region });
  // The emulator is its own process group too: record it so a killed owner's emulator is reaped.
  const pidFile = join(options.pidDir, 'ec2-emulator.pid');
  writeFileSync(pidFile, `${emulator.pid} ${process.pid}\n`);
  const stopEmulator = async () => {
    await emulator.stop();
    rmSync(pidFile, { force: true });
  };
  let ec2Faults: Ec2FaultInjector;
  try {
    const logFile = join(options.runDir, 'logs', 'ec2-faults.log');
    ec2Faults = await startEc2Faults({ target: emulator.endpoint, logFile });
  } catch (error) {
    await stopEmulator();
    throw error;
  }
  const ec2 = ec2ClientFor(emulator);
  return {
    provider: 'aws',
    region: options.region,
    csiDriver: 'ebs.csi.aws.com',
    volumeTopologyKey: 'topology.kubernetes.io/zone',
    component: { name: 'ec2-emulator', pid: emulator.pid, logFile: emulator.logFile },
    fencerEnv: {
      AWS_ENDPOINT_URL_EC2: ec2Faults.endpoint,
      AWS_REGION: options.region,
      AWS_ACCESS_KEY_ID: emulator.accessKeyId,
      AWS_SECRET_ACCESS_KEY: emulator.secretAccessKey,
    },
    ec2: { endpoint: emulator.endpoint, region: options.region, client: ec2 },
    ec2Faults,
    csi: { emulator },
    async createWorker({ cluster, zone, name }) {
      const worker = await createClusterInstance(ec2, { cluster, zone, name });
      const { instanceId, privateIp, privateDnsName } = worker;
      const providerID = `aws:///${zone}/${instanceId}`;
      return { name, instanceId, zone, region: options.region, providerID, privateIp, privateDnsName };
    },
    createVolume: (input) => createVolume(ec2, input),
    stopInstance: (id) => stopInstance(ec2, id),
    startInstance: (id) => startInstance(ec2, id),
    async stop() {
      await ec2Faults.stop();
      await stopEmulator();
    },
  };
}

/** ECS in the ECS emulator: ACK-like workers and cloud disks. */
export async function startAlibabaCloud(options: { runDir: string; region: string }): Promise<LabCloud> {
  const emulator = await startEcsEmulator({ runDir: options.runDir, region: options.region });
  const client = ecsClientFor(emulator);
  const region = options.region;
  return {
    provider: 'alibaba',
    region,
    csiDriver: ALIBABA_DISK_DRIVER,
    volumeTopologyKey: ALIBABA_DISK_ZONE_KEY,
    component: { name: 'ecs-emulator', pid: emulator.pid ?? 0, logFile: emulator.logFile ?? '' },
    fencerEnv: {
      ALIBABA_CLOUD_REGION: region,
      ALIBABA_CLOUD_ACCESS_KEY_ID: emulator.fencerKey.accessKeyId,
      ALIBABA_CLOUD_ACCESS_KEY_SECRET: emulator.fencerKey.accessKeySecret,
      FENCER_ECS_ENDPOINT: emulator.endpoint,
    },
    ecs: {
      endpoint: emulator.endpoint,
      region,
      client,
      fencerKey: emulator.fencerKey,
      admin: emulator.admin,
    },
    csi: { ecs: { endpoint: emulator.endpoint, region, key: emulator.labKey } },
    createWorker: ({ cluster, zone, name }) =>
      createAckWorker(emulator.admin, { cluster, region, zone, name }),
    createVolume: ({ zone, sizeGiB, cluster }) => createCloudDisk(client, { region, zone, sizeGiB, cluster }),
    stopInstance: (id) => stopEcsInstance(client, id),
    startInstance: (id) => startEcsInstance(client, id),
    stop: () => emulator.stop(),
  };
}
