/** The EC2 adapter against the lab's EC2 emulator (moto server, real HTTP, real SDK). */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { DeleteTagsCommand, DescribeInstancesCommand, type EC2Client } from '@aws-sdk/client-ec2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  attachVolume,
  createClusterInstance,
  createVolume,
  detachVolume,
  type Ec2Emulator,
  ec2ClientFor,
  MOTO_ACCOUNT_ID,
  startEc2Emulator,
  startInstance,
  terminateInstance,
} from '../../../lab/ec2-emulator.js';
import { Ec2ComputeFencer } from '../../../lib/adapters/aws-ec2/ec2-compute-fencer.js';
import type { InstanceRef } from '../../../lib/domain/instance.js';

const CLUSTER = 'lab';
const ZONE = 'us-east-1a';

let runDir: string;
let emulator: Ec2Emulator | undefined;
let client: EC2Client;
let fencer: Ec2ComputeFencer;

beforeAll(async () => {
  runDir = mkdtempSync(join(tmpdir(), 'kube-fencer-ec2-'));
  emulator = await startEc2Emulator({ runDir });
  client = ec2ClientFor(emulator);
  fencer = new Ec2ComputeFencer({ client, region: emulator.region, accountId: MOTO_ACCOUNT_ID });
});

afterAll(async () => {
  client?.destroy();
  await emulator?.stop();
  // Keep the emulator's log when it never started: the error names it.
  if (emulator) rmSync(runDir, { recursive: true, force: true });
});

/** A worker instance of `cluster`, and the ref the fencer parses from its providerID. */
const aWorker = async (cluster = CLUSTER): Promise<{ instanceId: string; ref: InstanceRef }> => {
  const worker = await createClusterInstance(client, { cluster, zone: ZONE, name: `${cluster}-worker` });
  return { instanceId: worker.instanceId, ref: fencer.parseProviderId(worker.providerId) };
};

/** An instance id EC2 has never seen. */
const UNKNOWN_REF: InstanceRef = { provider: 'aws', instanceId: 'i-0fedcba9876543210', zone: ZONE };

describe('inspect', () => {
  it('answers ownership, power and the machine’s own addresses and DNS name from one DescribeInstances', async () => {
    const { instanceId, ref } = await aWorker();
    const described = await client.send(new DescribeInstancesCommand({ InstanceIds: [instanceId] }));
    const instance = described.Reservations?.[0]?.Instances?.[0];

    const inspection = await fencer.inspect(ref, CLUSTER);

    expect(inspection.ownership).toMatchObject({ owned: true });
    expect(inspection.power).toMatchObject({ instanceId, state: 'running' });
    expect(instance?.PrivateIpAddress).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
    expect(inspection.identity).toStrictEqual({
      instanceId,
      privateIps: [instance?.PrivateIpAddress],
      hostnames: [instance?.PrivateDnsName?.toLowerCase()],
    });
  });

  it('reports an instance EC2 does not know as not found, not owned, with no identity', async () => {
    const inspection = await fencer.inspect(UNKNOWN_REF, CLUSTER);

    expect(inspection).toMatchObject({
      ownership: { owned: false, reason: 'not-found' },
      power: { state: 'not-found' },
      identity: null,
    });
  });

  it('gives up when the step’s signal is aborted, instead of holding the step', async () => {
    const { ref } = await aWorker();

    const inspecting = fencer.inspect(ref, CLUSTER, { signal: AbortSignal.abort() });

    await expect(inspecting).rejects.toThrow();
  });
});

describe('verifyOwnership', () => {
  it('owns an instance tagged for the cluster in the configured account and region', async () => {
    const { ref } = await aWorker();

    const verdict = await fencer.verifyOwnership(ref, CLUSTER);

    expect(verdict).toMatchObject({
      owned: true,
      evidence: expect.stringContaining(`kubernetes.io/cluster/${CLUSTER}=owned`),
    });
  });

  it('refuses an instance tagged for another cluster', async () => {
    const { ref } = await aWorker('other');

    const verdict = await fencer.verifyOwnership(ref, CLUSTER);

    expect(verdict).toMatchObject({ owned: false, reason: 'wrong-cluster' });
  });

  it('refuses an instance without the ownership tag', async () => {
    const { instanceId, ref } = await aWorker();
    await client.send(
      new DeleteTagsCommand({ Resources: [instanceId], Tags: [{ Key: `kubernetes.io/cluster/${CLUSTER}` }] }),
    );

    const verdict = await fencer.verifyOwnership(ref, CLUSTER);

    expect(verdict).toMatchObject({
      owned: false,
      reason: 'wrong-cluster',
      detail: expect.stringMatching(/no such tag/),
    });
  });

  it('refuses an instance owned by another account', async () => {
    const { ref } = await aWorker();
    const strict = new Ec2ComputeFencer({ client, region: 'us-east-1', accountId: '210987654321' });

    const verdict = await strict.verifyOwnership(ref, CLUSTER);

    expect(verdict).toMatchObject({
      owned: false,
      reason: 'wrong-account',
      detail: expect.stringContaining(MOTO_ACCOUNT_ID),
    });
  });

  it('refuses a providerID whose zone is not where the instance runs', async () => {
    const { instanceId } = await aWorker();

    const verdict = await fencer.verifyOwnership(
      { provider: 'aws', instanceId, zone: 'us-east-1c' },
      CLUSTER,
    );

    expect(verdict).toMatchObject({
      owned: false,
      reason: 'wrong-region',
      detail: expect.stringMatching(/us-east-1c/),
    });
  });

  it('refuses an instance EC2 does not know', async () => {
    const verdict = await fencer.verifyOwnership(UNKNOWN_REF, CLUSTER);

    expect(verdict).toMatchObject({ owned: false, detail: expect.stringMatching(/not found/) });
  });
});

describe('observePower and powerOff', () => {
  it('forces a running instance off and then observes it stopped, with EC2 evidence', async () => {
    const { ref } = await aWorker();
    const before = await fencer.observePower(ref);

    const outcome = await fencer.powerOff(ref, { dryRun: false, skipOsShutdown: true });
    const after = await fencer.observePower(ref);

    expect(before).toMatchObject({ state: 'running', stateCode: 16, lifecycle: 'on-demand' });
    expect(outcome).toEqual({ kind: 'requested', action: 'stop', previousState: 'running' });
    expect(after).toMatchObject({
      instanceId: ref.instanceId,
      state: 'stopped',
      providerState: 'stopped',
      stateCode: 80,
      stateReason: expect.stringMatching(/Client\.UserInitiatedShutdown.*User initiated/),
      launchTime: before.launchTime,
    });
    expect(Date.parse(after.observedAt)).toBeGreaterThanOrEqual(Date.parse(before.observedAt));
  });

  it('reports an instance that is already stopped as already off', async () => {
    const { ref } = await aWorker();
    await fencer.powerOff(ref, { dryRun: false });

    const again = await fencer.powerOff(ref, { dryRun: false });
    const dryAgain = await fencer.powerOff(ref, { dryRun: true });

    expect(again).toEqual({ kind: 'already-off', state: 'stopped' });
    expect(dryAgain).toEqual({ kind: 'already-off', state: 'stopped' });
  });

  it('reports a terminated instance as off', async () => {
    const { instanceId, ref } = await aWorker();
    await terminateInstance(client, instanceId);

    const evidence = await fencer.observePower(ref);
    const outcome = await fencer.powerOff(ref, { dryRun: false });

    expect(evidence).toMatchObject({ state: 'terminated', stateCode: 48 });
    expect(outcome).toEqual({ kind: 'already-off', state: 'terminated' });
  });

  it('reports an instance EC2 does not know as not-found, the proof that it is gone', async () => {
    const evidence = await fencer.observePower(UNKNOWN_REF);
    const outcome = await fencer.powerOff(UNKNOWN_REF, { dryRun: false });

    expect(evidence).toMatchObject({ instanceId: UNKNOWN_REF.instanceId, state: 'not-found' });
    expect(outcome).toEqual({ kind: 'already-off', state: 'not-found' });
  });

  it('changes nothing in a dry run and says the stop would succeed', async () => {
    const { ref } = await aWorker();

    const outcome = await fencer.powerOff(ref, { dryRun: true, skipOsShutdown: true });
    const after = await fencer.observePower(ref);

    expect(outcome).toMatchObject({ kind: 'dry-run', action: 'stop', wouldSucceed: true });
    expect(after.state).toBe('running');
  });

  it('shows a later launch time once the instance is started again (a power cycle)', async () => {
    const { instanceId, ref } = await aWorker();
    const fenced = await fencer.observePower(ref);
    await fencer.powerOff(ref, { dryRun: false });
    // EC2 reports LaunchTime to the second: a start within the same second would look unchanged.
    await sleep(1_100);

    await startInstance(client, instanceId);
    const restarted = await fencer.observePower(ref);

    expect(restarted.state).toBe('running');
    expect(Date.parse(restarted.launchTime ?? '')).toBeGreaterThan(Date.parse(fenced.launchTime ?? ''));
  });
});

describe('attachedDisks', () => {
  it('lists a data volume while attached, keeps it through a stop, and drops it after detach', async () => {
    const { instanceId, ref } = await aWorker();
    const volumeId = await createVolume(client, { zone: ZONE, sizeGiB: 4, cluster: CLUSTER });
    await attachVolume(client, { volumeId, instanceId, device: '/dev/xvdf' });

    const attached = await fencer.attachedDisks(ref);
    await fencer.powerOff(ref, { dryRun: false });
    const afterStop = await fencer.attachedDisks(ref);
    await detachVolume(client, { volumeId, instanceId });
    const afterDetach = await fencer.attachedDisks(ref);

    const data = { volumeId, state: 'attached', device: '/dev/xvdf', root: false };
    const boot = expect.objectContaining({ state: 'attached', root: true });
    expect(attached).toEqual(expect.arrayContaining([data, boot]));
    expect(attached).toHaveLength(2);
    expect(afterStop).toEqual(attached);
    expect(afterDetach).toEqual([boot]);
  });

  it('lists nothing for an instance EC2 does not know', async () => {
    expect(await fencer.attachedDisks(UNKNOWN_REF)).toEqual([]);
  });
});
