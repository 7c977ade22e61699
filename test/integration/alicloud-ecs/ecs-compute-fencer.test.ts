/** The ECS adapter against the lab's ECS emulator, through the real SDK over HTTP with signatures verified. */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type EcsEmulator, FENCER_KEY, startEcsEmulatorInProcess } from '../../../lab/ecs-emulator/index.js';
import { ecsClientFor } from '../../../lab/ecs-emulator/sdk.js';
import { eventually } from '../../../lab/kube-wait.js';
import { EcsComputeFencer, ProviderApiError } from '../../../lib/adapters/alicloud-ecs/index.js';
import type { InstanceRef } from '../../../lib/domain/instance.js';

const REGION = 'cn-hangzhou';
const ZONE = 'cn-hangzhou-i';
const CLUSTER = 'c0ffee';
const OWNED = { 'ack.aliyun.com': CLUSTER, 'ack.alibabacloud.com/nodepool-id': 'np-1' };
/** Backoff in milliseconds, so retries are real but the test does not sleep long. */
const FAST_RETRY = { maxAttempts: 4, baseDelayMs: 5, maxDelayMs: 20 };

let emulator: EcsEmulator;
let fencer: EcsComputeFencer;

beforeAll(async () => {
  emulator = await startEcsEmulatorInProcess({
    region: REGION,
    delays: { stopMs: 300, startMs: 300, attachMs: 50, detachMs: 50 },
  });
  fencer = new EcsComputeFencer({
    region: REGION,
    client: ecsClientFor(emulator, FENCER_KEY),
    retry: FAST_RETRY,
  });
});
afterAll(async () => {
  await emulator?.stop();
});
beforeEach(async () => {
  await emulator.admin.clearFaults();
});

const aWorker = async (tags: Record<string, string> = OWNED) => {
  const instance = await emulator.admin.createInstance({ zoneId: ZONE, tags });
  return { instance, ref: fencer.parseProviderId(`${REGION}.${instance.InstanceId}`) };
};

const statusOf = async (id: string) => (await emulator.admin.instance(id)).Status;

describe('inspect', () => {
  it('reads ownership, power and identity from one DescribeInstances call', async () => {
    const { instance, ref } = await aWorker();
    await emulator.admin.clearRequests();

    const seen = await fencer.inspect(ref, CLUSTER);

    expect(seen.ownership).toEqual({
      owned: true,
      evidence: `instance ${instance.InstanceId} in ${ZONE} carries ack.aliyun.com=${CLUSTER}`,
    });
    expect(seen.power).toMatchObject({
      instanceId: instance.InstanceId,
      state: 'running',
      providerState: 'Running',
      lifecycle: 'on-demand',
    });
    expect(seen.power.launchTime).toBe(new Date(instance.StartTime).toISOString());
    expect(seen.identity).toEqual({
      instanceId: instance.InstanceId,
      privateIps: instance.VpcAttributes.PrivateIpAddress.IpAddress,
      hostnames: [instance.HostName.toLowerCase()],
    });
    const calls = (await emulator.admin.requests()).map((r) => `${r.action} ${r.accessKeyId}`);
    expect(calls).toEqual([`DescribeInstances ${FENCER_KEY.accessKeyId}`]);
  });

  it('does not own an instance without the cluster tag, and says which tag it lacks', async () => {
    const { ref } = await aWorker({ 'ack.aliyun.com': 'another-cluster' });
    const seen = await fencer.inspect(ref, CLUSTER);
    expect(seen.ownership).toMatchObject({
      owned: false,
      reason: 'wrong-cluster',
      detail: expect.stringMatching(/has ack.aliyun.com=another-cluster/),
    });
  });

  it('proves a released instance gone only through DescribeInstanceAttribute’s InvalidInstanceId.NotFound', async () => {
    const { instance, ref } = await aWorker();
    await emulator.admin.releaseInstance(instance.InstanceId);
    await emulator.admin.clearRequests();

    const seen = await fencer.inspect(ref, CLUSTER);

    expect(seen.power).toMatchObject({
      state: 'not-found',
      stateReason: expect.stringMatching(/InvalidInstanceId.NotFound/),
    });
    expect(seen.identity).toBeNull();
    // Not found is its own answer, never "another account": a run committed to it reads it as gone.
    expect(seen.ownership).toMatchObject({ owned: false, reason: 'not-found' });
    expect((await emulator.admin.requests()).map((r) => [r.action, r.code])).toEqual([
      ['DescribeInstances', undefined],
      ['DescribeInstanceAttribute', 'InvalidInstanceId.NotFound'],
    ]);
  });

  it('never asks about an instance of another region, and never reads that as off', async () => {
    const ref = fencer.parseProviderId('cn-beijing.i-2zeabcdefghijklmnopq');
    await emulator.admin.clearRequests();
    const seen = await fencer.inspect(ref, CLUSTER);
    expect(seen.ownership).toMatchObject({ owned: false, reason: 'wrong-region' });
    expect(seen.power.state).toBe('unknown');
    expect(await emulator.admin.requests()).toEqual([]);
  });

  it('retries throttling with backoff, then answers', async () => {
    const { ref } = await aWorker();
    await emulator.admin.injectFaults({
      action: 'DescribeInstances',
      accessKeyId: FENCER_KEY.accessKeyId,
      status: 400,
      code: 'Throttling.User',
      retryAfterMs: 10,
      times: 2,
    });
    await emulator.admin.clearRequests();
    const seen = await fencer.inspect(ref, CLUSTER);
    expect(seen.power.state).toBe('running');
    expect((await emulator.admin.requests()).map((r) => r.code ?? 'ok')).toEqual([
      'Throttling.User',
      'Throttling.User',
      'ok',
    ]);
  });

  it('fails cleanly when throttling outlasts its attempts: a ProviderApiError, never evidence', async () => {
    const { ref } = await aWorker();
    await emulator.admin.injectFaults({
      action: '*',
      accessKeyId: FENCER_KEY.accessKeyId,
      status: 400,
      code: 'Throttling.User',
      times: 10,
    });
    const failure = await fencer.inspect(ref, CLUSTER).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(ProviderApiError);
    expect(failure).toMatchObject({
      name: 'ProviderApiError',
      code: 'Throttling.User',
      throttled: true,
      retryable: true,
      attempts: 4,
      httpStatus: 400,
    });
    expect((failure as ProviderApiError).requestId).toMatch(/^[0-9A-F-]{36}$/);
  });

  it('gives up as soon as the step’s signal aborts, even while ECS is slow to answer', async () => {
    const { ref } = await aWorker();
    await emulator.admin.injectFaults({
      action: 'DescribeInstances',
      accessKeyId: FENCER_KEY.accessKeyId,
      latencyMs: 3000,
    });
    const started = Date.now();
    const failure = await fencer
      .inspect(ref, CLUSTER, { signal: AbortSignal.timeout(200) })
      .catch((e: unknown) => e);
    expect(failure).toMatchObject({ name: 'ProviderApiError', code: 'StepBudgetExhausted' });
    expect(Date.now() - started).toBeLessThan(2500);
  });

  it('retries a call whose answer outlives the read timeout', async () => {
    const { instance } = await aWorker();
    const slowClient = (await import('../../../lib/adapters/alicloud-ecs/index.js')).createEcsClient({
      region: REGION,
      endpoint: emulator.endpoint,
      credentials: FENCER_KEY,
      readTimeoutMs: 300,
      connectTimeoutMs: 300,
    });
    const patient = new EcsComputeFencer({ region: REGION, client: slowClient, retry: FAST_RETRY });
    await emulator.admin.injectFaults({
      action: 'DescribeInstances',
      accessKeyId: FENCER_KEY.accessKeyId,
      latencyMs: 1000,
    });
    const power = await patient.observePower(
      patient.parseProviderId(`alicloud://${REGION}.${instance.InstanceId}`),
    );
    expect(power.state).toBe('running');
  });
});

describe('powerOff', () => {
  it('forces the instance off with StopInstances (SuccessFirst, KeepCharging) and ECS reports Stopped later', async () => {
    const { instance, ref } = await aWorker();
    await emulator.admin.clearRequests();

    const outcome = await fencer.powerOff(ref, { dryRun: false });

    expect(outcome).toEqual({ kind: 'requested', action: 'stop', previousState: 'Running' });
    const stop = (await emulator.admin.requests()).find((r) => r.action === 'StopInstances');
    expect(stop?.params).toMatchObject({
      ForceStop: 'true',
      BatchOptimization: 'SuccessFirst',
      StoppedMode: 'KeepCharging',
      'InstanceId.1': instance.InstanceId,
      RegionId: REGION,
    });
    expect((await fencer.observePower(ref)).state).toBe('stopping');
    await eventually('Stopped', async () =>
      (await fencer.observePower(ref)).state === 'stopped' ? true : undefined,
    );
    expect((await fencer.observePower(ref)).stateReason).toBe('stopped mode KeepCharging');
    expect(await fencer.powerOff(ref, { dryRun: false })).toEqual({ kind: 'already-off', state: 'Stopped' });
  });

  it('stops in economical mode when configured', async () => {
    const { ref } = await aWorker();
    const economical = new EcsComputeFencer({
      region: REGION,
      client: ecsClientFor(emulator, FENCER_KEY),
      stoppedMode: 'StopCharging',
    });
    await economical.powerOff(ref, { dryRun: false });
    await emulator.admin.clearRequests();
    await eventually('Stopped', async () =>
      (await fencer.observePower(ref)).state === 'stopped' ? true : undefined,
    );
    expect((await fencer.observePower(ref)).stateReason).toBe('stopped mode StopCharging');
  });

  it('asks ECS with DryRun and changes nothing', async () => {
    const { instance, ref } = await aWorker();
    const outcome = await fencer.powerOff(ref, { dryRun: true });
    expect(outcome).toEqual({
      kind: 'dry-run',
      action: 'stop',
      wouldSucceed: true,
      detail: 'ECS StopInstances would succeed (DRYRUN.SUCCESS)',
    });
    expect(await statusOf(instance.InstanceId)).toBe('Running');
  });

  it('re-describes after IncorrectInstanceStatus instead of trusting it: a stop already under way stays requested', async () => {
    const { instance, ref } = await aWorker();
    await emulator.admin.patchInstance(instance.InstanceId, { stuckInStopping: true });
    await fencer.powerOff(ref, { dryRun: false });
    await emulator.admin.clearRequests();

    const again = await fencer.powerOff(ref, { dryRun: false });

    expect(again).toEqual({ kind: 'requested', action: 'stop', previousState: 'Stopping' });
    expect((await emulator.admin.requests()).map((r) => r.action)).toEqual([
      'DescribeInstances',
      'StopInstances',
      'DescribeInstances',
    ]);
    expect((await fencer.observePower(ref)).state).toBe('stopping');
  });

  it('reports a locked instance ECS will not stop as not stoppable, with the reason code and the lock', async () => {
    const instance = await emulator.admin.createInstance({
      zoneId: ZONE,
      tags: OWNED,
      locks: [{ lockReason: 'security', lockMsg: 'locked by the security center' }],
    });
    const ref = fencer.parseProviderId(`${REGION}.${instance.InstanceId}`);
    const outcome = await fencer.powerOff(ref, { dryRun: false });
    expect(outcome).toMatchObject({
      kind: 'not-stoppable',
      detail: expect.stringMatching(
        /^InstanceLocked: .*security \(locked by the security center\).*InstanceLockedForSecurity/,
      ),
    });
    expect((await fencer.observePower(ref)).stateReason).toMatch(/operation locks: security/);
  });

  it('reads a released instance as already off', async () => {
    const { instance, ref } = await aWorker();
    await emulator.admin.releaseInstance(instance.InstanceId);
    expect(await fencer.powerOff(ref, { dryRun: false })).toEqual({
      kind: 'already-off',
      state: 'not-found',
    });
  });

  it('fails with the code ECS gave when the stop is denied', async () => {
    const { ref } = await aWorker();
    await emulator.admin.injectFaults({
      action: 'StopInstances',
      status: 403,
      code: 'Forbidden.RAM',
      message: 'User not authorized to operate on the specified resource.',
    });
    const failure = await fencer.powerOff(ref, { dryRun: false }).catch((e: unknown) => e);
    expect(failure).toMatchObject({
      name: 'ProviderApiError',
      code: 'Forbidden.RAM',
      retryable: false,
      httpStatus: 403,
    });
  });
});

describe('disks', () => {
  it('lists the disks on an instance, the system disk marked as the boot disk, multi-attach disks by their Attachments', async () => {
    const { instance, ref } = await aWorker();
    const other = await emulator.admin.createInstance({ zoneId: ZONE, tags: OWNED });
    const data = await emulator.admin.createDisk({ zoneId: ZONE, size: 20 });
    const shared = await emulator.admin.createDisk({ zoneId: ZONE, size: 20, multiAttach: true });
    const lab = ecsClientFor(emulator);
    const { Ecs } = await import('../../../lib/adapters/alicloud-ecs/sdk.js');
    await lab.attachDisk(new Ecs.AttachDiskRequest({ instanceId: instance.InstanceId, diskId: data.DiskId }));
    await lab.attachDisk(new Ecs.AttachDiskRequest({ instanceId: other.InstanceId, diskId: shared.DiskId }));
    await eventually('attached', async () =>
      (await emulator.admin.disk(shared.DiskId)).Status === 'In_use' ? true : undefined,
    );
    await lab.attachDisk(
      new Ecs.AttachDiskRequest({ instanceId: instance.InstanceId, diskId: shared.DiskId }),
    );
    await eventually('both attached', async () =>
      (await emulator.admin.disk(shared.DiskId)).Attachments.Attachment.length === 2 &&
      (await emulator.admin.disk(data.DiskId)).Status === 'In_use'
        ? true
        : undefined,
    );

    const disks = await fencer.attachedDisks(ref);

    const byId = new Map(disks.map((d) => [d.volumeId, d]));
    expect(byId.get(data.DiskId)).toMatchObject({ state: 'attached', root: false });
    expect(byId.get(shared.DiskId)).toMatchObject({ state: 'attached', root: false });
    expect([...byId.values()].filter((d) => d.root)).toHaveLength(1);
    const many = await fencer.describeDisks([
      data.DiskId,
      shared.DiskId,
      'd-bpnosuchdisk000000000',
      'vol-0123456789abcdef0',
    ]);
    expect(many.results.get(shared.DiskId)).toMatchObject({
      ok: true,
      value: { exists: true, providerState: 'In_use' },
    });
    const sharedState = many.results.get(shared.DiskId);
    expect(sharedState?.ok && sharedState.value.attachments.map((a) => a.instanceId).sort()).toEqual(
      [instance.InstanceId, other.InstanceId].sort(),
    );
    expect(many.results.get('d-bpnosuchdisk000000000')).toMatchObject({
      ok: false,
      error: { name: 'EmptyDescribeResult' },
    });
    expect(many.results.get('vol-0123456789abcdef0')).toMatchObject({
      ok: false,
      error: { name: 'NotAnEcsDisk' },
    });
    expect(many.calls).toBe(1);
  });
});

describe('observePowerMany', () => {
  it('answers many instances in one call, confirms the missing one gone, and keeps within its call budget', async () => {
    const a = await aWorker();
    const b = await aWorker();
    const gone = await aWorker();
    await emulator.admin.releaseInstance(gone.instance.InstanceId);
    const refs: InstanceRef[] = [
      a.ref,
      b.ref,
      gone.ref,
      fencer.parseProviderId('cn-beijing.i-2zeabcdefghijklmnopq'),
    ];

    const answer = await fencer.observePowerMany(refs);

    expect(answer.calls).toBe(2);
    expect(answer.results.get(a.instance.InstanceId)).toMatchObject({
      ok: true,
      value: { state: 'running' },
    });
    expect(answer.results.get(gone.instance.InstanceId)).toMatchObject({
      ok: true,
      value: { state: 'not-found' },
    });
    expect(answer.results.get('i-2zeabcdefghijklmnopq')).toMatchObject({
      ok: false,
      error: { name: 'RegionMismatchError' },
    });
    const tight = await fencer.observePowerMany([a.ref, gone.ref], { maxCalls: 1 });
    expect(tight.results.get(gone.instance.InstanceId)).toMatchObject({
      ok: false,
      error: { name: 'CallBudgetExhausted' },
    });
  });
});
