/**
 * The EC2 fault injector in front of the real EC2 emulator, with the real AWS SDK as its client (the
 * fencer's own client settings: adaptive retries, 5 attempts). What passes through is moto's answer;
 * what the injector stages (throttling, latency, a stop that never completes) is what the SDK and the
 * fencer would see from EC2; the log records every call.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  DescribeInstancesCommand,
  DescribeVolumesCommand,
  type EC2Client,
  StopInstancesCommand,
  TerminateInstancesCommand,
} from '@aws-sdk/client-ec2';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  createClusterInstance,
  describeInstanceState,
  type Ec2Emulator,
  ec2ClientFor,
  startEc2Emulator,
} from '../../../lab/ec2-emulator.js';
import { type Ec2FaultInjector, startEc2Faults } from '../../../lab/ec2-faults/index.js';
import { eventually } from '../../../lab/kube-wait.js';
import { createEc2Client } from '../../../lib/adapters/aws-ec2/ec2-client.js';

const ZONE = 'us-east-1a';

let runDir: string;
let emulator: Ec2Emulator;
let faults: Ec2FaultInjector;
/** Straight to moto: the truth. */
let moto: EC2Client;
/** Through the injector, configured as the fencer configures its client. */
let fencer: EC2Client;

beforeAll(async () => {
  runDir = mkdtempSync(join(tmpdir(), 'kube-fencer-ec2-faults-'));
  emulator = await startEc2Emulator({ runDir, pidDir: join(runDir, 'pids') });
  faults = await startEc2Faults({ target: emulator.endpoint, logFile: join(runDir, 'ec2-faults.log') });
  moto = ec2ClientFor(emulator);
  fencer = createEc2Client(emulator.region, {
    endpoint: faults.endpoint,
    credentials: { accessKeyId: emulator.accessKeyId, secretAccessKey: emulator.secretAccessKey },
  });
});

afterAll(async () => {
  fencer?.destroy();
  moto?.destroy();
  await faults?.stop();
  await emulator?.stop();
  rmSync(runDir, { recursive: true, force: true });
});

afterEach(() => {
  faults.clear();
  faults.resetRequests();
});

const worker = (name: string) => createClusterInstance(moto, { cluster: 'lab', zone: ZONE, name });

const stateVia = async (client: EC2Client, instanceId: string) => {
  const out = await client.send(new DescribeInstancesCommand({ InstanceIds: [instanceId] }));
  const state = out.Reservations?.[0]?.Instances?.[0]?.State;
  return `${state?.Name}/${state?.Code}`;
};

describe('the EC2 fault injector', () => {
  it("passes calls to moto unchanged and logs each call's action, ids and DryRun flag", async () => {
    const { instanceId, privateIp } = await worker('plain');

    const out = await fencer.send(new DescribeInstancesCommand({ InstanceIds: [instanceId] }));
    const dryRun = fencer.send(new StopInstancesCommand({ InstanceIds: [instanceId], DryRun: true }));
    await expect(dryRun).rejects.toMatchObject({ name: 'DryRunOperation' });
    await fencer.send(
      new DescribeVolumesCommand({ Filters: [{ Name: 'attachment.instance-id', Values: [instanceId] }] }),
    );

    expect(out.Reservations?.[0]?.Instances?.[0]?.PrivateIpAddress).toBe(privateIp);
    expect(await describeInstanceState(moto, instanceId)).toBe('running');
    expect(
      faults.requests().map(({ action, instanceIds, dryRun, faults: applied, status, errorCode }) => ({
        action,
        instanceIds,
        dryRun,
        applied,
        status,
        errorCode,
      })),
    ).toEqual([
      {
        action: 'DescribeInstances',
        instanceIds: [instanceId],
        dryRun: false,
        applied: [],
        status: 200,
        errorCode: undefined,
      },
      {
        action: 'StopInstances',
        instanceIds: [instanceId],
        dryRun: true,
        applied: [],
        status: 412,
        errorCode: 'DryRunOperation',
      },
      {
        action: 'DescribeVolumes',
        instanceIds: [instanceId],
        dryRun: false,
        applied: [],
        status: 200,
        errorCode: undefined,
      },
    ]);
    // The log file holds the same calls, one JSON line each, for debugging a lab run.
    const lines = readFileSync(join(runDir, 'ec2-faults.log'), 'utf8').trim().split('\n');
    expect(lines.slice(-3).map((l) => (JSON.parse(l) as { action: string }).action)).toEqual([
      'DescribeInstances',
      'StopInstances',
      'DescribeVolumes',
    ]);
  });

  it("throttles the next N calls with EC2's RequestLimitExceeded, which the SDK retries", async () => {
    const { instanceId } = await worker('throttled-twice');
    faults.inject({ kind: 'throttle', action: 'DescribeInstances', times: 2 });

    const out = await fencer.send(new DescribeInstancesCommand({ InstanceIds: [instanceId] }));

    expect(out.$metadata.attempts).toBe(3);
    expect(faults.requests().map((r) => [r.action, r.status, r.errorCode ?? null, r.faults.length])).toEqual([
      ['DescribeInstances', 503, 'RequestLimitExceeded', 1],
      ['DescribeInstances', 503, 'RequestLimitExceeded', 1],
      ['DescribeInstances', 200, null, 0],
    ]);
  });

  it('fails a call throttled past the SDK attempts with RequestLimitExceeded, HTTP 503 and a request id', async () => {
    const { instanceId } = await worker('throttled-out');
    const impatient = createEc2Client(emulator.region, {
      endpoint: faults.endpoint,
      credentials: { accessKeyId: emulator.accessKeyId, secretAccessKey: emulator.secretAccessKey },
      maxAttempts: 2,
    });
    const fault = faults.inject({ kind: 'throttle', action: '*', forMs: 60_000 });

    const error = await impatient
      .send(new StopInstancesCommand({ InstanceIds: [instanceId], Force: true }))
      .catch(
        (e: unknown) =>
          e as Error & { $metadata: { httpStatusCode?: number; attempts?: number; requestId?: string } },
      );

    expect(error).toMatchObject({ name: 'RequestLimitExceeded' });
    expect(error.$metadata).toMatchObject({ httpStatusCode: 503, attempts: 2 });
    expect(error.$metadata.requestId).toMatch(/^[0-9a-f-]{36}$/);
    // Nothing reached moto: the machine is still running.
    expect(await describeInstanceState(moto, instanceId)).toBe('running');
    fault.remove();
    expect(await stateVia(impatient, instanceId)).toBe('running/16');
    impatient.destroy();
  });

  it('answers a slow read late, and a caller with a deadline gives up on it', async () => {
    const { instanceId } = await worker('slow');
    faults.inject({ kind: 'latency', action: 'DescribeInstances', delayMs: 1500, times: 1 });

    const timedOut = fencer.send(new DescribeInstancesCommand({ InstanceIds: [instanceId] }), {
      abortSignal: AbortSignal.timeout(200),
    });
    await expect(timedOut).rejects.toMatchObject({ name: 'AbortError' });

    faults.inject({ kind: 'latency', action: 'DescribeInstances', delayMs: 800, times: 1 });
    const started = Date.now();
    expect(await stateVia(fencer, instanceId)).toBe('running/16');
    // A functional check of the staged delay (a lower bound), not a performance figure.
    expect(Date.now() - started).toBeGreaterThanOrEqual(800);
    expect(faults.requests().at(-1)?.faults).toEqual(['latency 800ms before']);
  });

  it('holds back the answer of a power-off that moto already carried out (latency after)', async () => {
    const { instanceId } = await worker('answer-lost');
    faults.inject({ kind: 'latency', action: 'StopInstances', delayMs: 5000, when: 'after' });

    const pending = fencer.send(new StopInstancesCommand({ InstanceIds: [instanceId], Force: true }));
    await faults.waitForRequest((r) => r.action === 'StopInstances');

    // The machine goes off while its caller has not heard back: the answer is still held.
    await eventually(
      'moto stopped the instance',
      async () => ((await describeInstanceState(moto, instanceId)) === 'stopped' ? true : undefined),
      { timeoutMs: 4000, intervalMs: 100 },
    );
    expect(faults.requests().at(-1)?.status).toBeNull();
    const out = await pending;
    expect(out.StoppingInstances?.[0]?.PreviousState?.Name).toBe('running');
    expect(faults.requests().at(-1)).toMatchObject({ status: 200, faults: ['latency 5000ms after'] });
  });

  it('records the state a power-off found the machine in', async () => {
    const { instanceId } = await worker('previous-state');

    await fencer.send(new StopInstancesCommand({ InstanceIds: [instanceId], Force: true }));
    await fencer.send(new StopInstancesCommand({ InstanceIds: [instanceId], Force: true }));

    expect(faults.requests().map((r) => r.previousStates)).toEqual([
      { [instanceId]: 'running' },
      { [instanceId]: 'stopped' },
    ]);
  });

  it('reports an instance stopping whatever moto says, while its StopInstances goes through', async () => {
    const held = await worker('stuck-stopping');
    const other = await worker('bystander');
    faults.inject({ kind: 'stopping', instanceId: held.instanceId });

    await fencer.send(new StopInstancesCommand({ InstanceIds: [held.instanceId], Force: true }));

    expect(await describeInstanceState(moto, held.instanceId)).toBe('stopped');
    expect(await stateVia(fencer, held.instanceId)).toBe('stopping/64');
    // An unfiltered DescribeInstances: only the held instance is rewritten.
    const all = await fencer.send(new DescribeInstancesCommand({}));
    const states = Object.fromEntries(
      (all.Reservations ?? []).flatMap((r) => r.Instances ?? []).map((i) => [i.InstanceId, i.State?.Name]),
    );
    expect(states[held.instanceId]).toBe('stopping');
    expect(states[other.instanceId]).toBe('running');
    expect(faults.requests().at(-1)?.faults).toEqual([`stopping ${held.instanceId}`]);

    faults.clear();
    expect(await stateVia(fencer, held.instanceId)).toBe('stopped/80');
  });

  it('can hold a StopInstances so that moto keeps the machine running (DryRun still reaches moto)', async () => {
    const { instanceId } = await worker('held-stop');
    faults.inject({ kind: 'stopping', instanceId, stopInstances: 'hold' });

    const out = await fencer.send(new StopInstancesCommand({ InstanceIds: [instanceId], Force: true }));
    const dryRun = fencer.send(new StopInstancesCommand({ InstanceIds: [instanceId], DryRun: true }));

    expect(out.StoppingInstances?.[0]).toMatchObject({
      InstanceId: instanceId,
      CurrentState: { Name: 'stopping', Code: 64 },
      PreviousState: { Name: 'running', Code: 16 },
    });
    await expect(dryRun).rejects.toMatchObject({ name: 'DryRunOperation' });
    expect(await describeInstanceState(moto, instanceId)).toBe('running');
    expect(await stateVia(fencer, instanceId)).toBe('stopping/64');
  });

  it('answers InvalidInstanceID.NotFound for a terminated instance EC2 has forgotten, and for it alone', async () => {
    const gone = await worker('forgotten');
    const other = await worker('remembered');
    await moto.send(new TerminateInstancesCommand({ InstanceIds: [gone.instanceId] }));
    faults.inject({ kind: 'forgotten', instanceId: gone.instanceId });

    await expect(stateVia(fencer, gone.instanceId)).rejects.toMatchObject({
      name: 'InvalidInstanceID.NotFound',
    });
    expect(await stateVia(fencer, other.instanceId)).toBe('running/16');
    // moto itself still shows it terminated: only the fencer's view is the forgetting EC2's.
    expect(await describeInstanceState(moto, gone.instanceId)).toBe('terminated');
    expect(faults.requests().find((r) => r.instanceIds.includes(gone.instanceId))?.faults).toEqual([
      `forgotten ${gone.instanceId}`,
    ]);
  });

  it('refuses a fault that could not mean what was meant, and injects nothing', () => {
    expect(() => faults.inject({ kind: 'latency', action: 'DescribeInstances', delayMs: -1 })).toThrow(
      /delayMs/,
    );
    expect(() => faults.inject({ kind: 'throttle', action: 'DescribeInstances', times: 0 })).toThrow(/times/);
    expect(() => faults.inject({ kind: 'throttle', action: '' })).toThrow(/action/);
    expect(() => faults.inject({ kind: 'stopping', instanceId: 'node-a' })).toThrow(/instanceId/);
  });
});
