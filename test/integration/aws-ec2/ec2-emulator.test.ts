/**
 * The lab's EC2 emulator itself: the moto behaviours the lab relies on (see lab/ec2-emulator.ts),
 * and a clean stop.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type EC2Client, StartInstancesCommand, StopInstancesCommand } from '@aws-sdk/client-ec2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  attachVolume,
  createClusterInstance,
  createVolume,
  describeInstance,
  describeInstanceState,
  detachVolume,
  type Ec2Emulator,
  ec2ClientFor,
  startEc2Emulator,
} from '../../../lab/ec2-emulator.js';

const ZONE = 'us-east-1b';

let runDir: string;
let emulator: Ec2Emulator | undefined;
let client: EC2Client;

beforeAll(async () => {
  runDir = mkdtempSync(join(tmpdir(), 'kube-fencer-ec2-'));
  emulator = await startEc2Emulator({ runDir, pidDir: join(runDir, 'pids') });
  client = ec2ClientFor(emulator);
});

afterAll(async () => {
  client?.destroy();
  await emulator?.stop();
  if (emulator) rmSync(runDir, { recursive: true, force: true });
});

const aWorker = (name: string) => createClusterInstance(client, { cluster: 'lab', zone: ZONE, name });

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

const accepts = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => socket.end(() => resolve(true)));
    socket.once('error', () => resolve(false));
  });

describe('the lab EC2 emulator', () => {
  it('listens on loopback, logs to the run directory and records its pid', () => {
    expect(emulator?.endpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(emulator?.logFile).toBe(join(runDir, 'logs', 'ec2-emulator.log'));
    expect(existsSync(join(runDir, 'pids', 'ec2-emulator.pid'))).toBe(true);
  });

  it('answers StopInstances with stopping, yet shows the instance stopped at once', async () => {
    const { instanceId } = await aWorker('stop-fact');

    const answer = await client.send(new StopInstancesCommand({ InstanceIds: [instanceId], Force: true }));

    expect(answer.StoppingInstances?.[0]?.CurrentState?.Name).toBe('stopping');
    expect(await describeInstanceState(client, instanceId)).toBe('stopped');
  });

  it('gives a started instance a new launch time, as EC2 does', async () => {
    const { instanceId, launchTime } = await aWorker('start-fact');
    await client.send(new StopInstancesCommand({ InstanceIds: [instanceId] }));
    await new Promise((resolve) => setTimeout(resolve, 1_100));

    const answer = await client.send(new StartInstancesCommand({ InstanceIds: [instanceId] }));
    const relaunched = await describeInstance(client, instanceId);

    expect(answer.StartingInstances?.[0]?.CurrentState?.Name).toBe('pending');
    expect(relaunched.state).toBe('running');
    expect(Date.parse(relaunched.launchTime ?? '')).toBeGreaterThan(Date.parse(launchTime));
  });

  it('refuses to attach a volume that is attached elsewhere (VolumeInUse) until it is detached', async () => {
    const first = await aWorker('holder');
    const second = await aWorker('taker');
    const volumeId = await createVolume(client, { zone: ZONE, sizeGiB: 2, cluster: 'lab' });
    await attachVolume(client, { volumeId, instanceId: first.instanceId, device: '/dev/xvdf' });

    const stolen = attachVolume(client, { volumeId, instanceId: second.instanceId, device: '/dev/xvdf' });

    await expect(stolen).rejects.toMatchObject({ name: 'VolumeInUse' });
    await detachVolume(client, { volumeId, instanceId: first.instanceId });
    await expect(
      attachVolume(client, { volumeId, instanceId: second.instanceId, device: '/dev/xvdf' }),
    ).resolves.toBeUndefined();
  });

  it('forgets every instance on reset', async () => {
    const { instanceId } = await aWorker('forgotten');

    await emulator?.reset();

    expect(await describeInstanceState(client, instanceId)).toBe('not-found');
  });

  it('leaves no process and no listening port behind once stopped', async () => {
    const other = await startEc2Emulator({ runDir: join(runDir, 'second') });
    const port = Number(new URL(other.endpoint).port);

    await other.stop();
    await other.stop();

    expect(isAlive(other.pid)).toBe(false);
    expect(await accepts(port)).toBe(false);
  });
});
