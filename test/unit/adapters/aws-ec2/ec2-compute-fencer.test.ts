/**
 * Rare EC2 states the lab's emulator (moto) cannot produce: one-time Spot requests that refuse to
 * stop, UnauthorizedOperation on a DryRun, stop protection, instances mid-termination, unknown
 * states. EC2 is a MOCK here (aws-sdk-client-mock): the answers are EC2's documented ones, and
 * everything moto can do is tested against moto in test/integration/aws-ec2.
 */
import {
  DescribeInstancesCommand,
  DescribeSpotInstanceRequestsCommand,
  DescribeVolumesCommand,
  EC2Client,
  EC2ServiceException,
  type Instance,
  StopInstancesCommand,
  TerminateInstancesCommand,
} from '@aws-sdk/client-ec2';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { Ec2ComputeFencer } from '../../../../lib/adapters/aws-ec2/ec2-compute-fencer.js';
import { ProviderApiError, RegionMismatchError } from '../../../../lib/adapters/aws-ec2/errors.js';
import type { InstanceRef } from '../../../../lib/domain/instance.js';

const INSTANCE_ID = 'i-0123456789abcdef0';
const REF: InstanceRef = { provider: 'aws', instanceId: INSTANCE_ID, zone: 'us-east-1a' };
const NOW = new Date('2026-03-01T12:00:00.000Z');

const ec2Error = (code: string, message: string, httpStatusCode = 400) =>
  new EC2ServiceException({
    name: code,
    $fault: httpStatusCode >= 500 ? 'server' : 'client',
    $metadata: { httpStatusCode },
    message,
  });

const client = new EC2Client({
  region: 'us-east-1',
  credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
});
const ec2 = mockClient(client);
const fencer = new Ec2ComputeFencer({ client, region: 'us-east-1', now: () => NOW });

const givenInstance = (instance: Partial<Instance>) =>
  ec2.on(DescribeInstancesCommand).resolves({
    Reservations: [
      {
        OwnerId: '123456789012',
        Instances: [{ InstanceId: INSTANCE_ID, State: { Name: 'running', Code: 16 }, ...instance }],
      },
    ],
  });

const givenOneTimeSpot = () => {
  givenInstance({ InstanceLifecycle: 'spot', SpotInstanceRequestId: 'sir-1' });
  ec2.on(DescribeSpotInstanceRequestsCommand).resolves({ SpotInstanceRequests: [{ Type: 'one-time' }] });
};

const mutatingCalls = () => [
  ...ec2.commandCalls(StopInstancesCommand),
  ...ec2.commandCalls(TerminateInstancesCommand),
];

beforeEach(() => {
  ec2.reset();
});

describe('powerOff with rare instance states', () => {
  it('refuses to stop a one-time Spot instance when terminating is not allowed', async () => {
    // Prepare
    givenOneTimeSpot();

    // Act
    const outcome = await fencer.powerOff(REF, { dryRun: false });

    // Assess
    expect(outcome).toMatchObject({ kind: 'not-stoppable', detail: expect.stringMatching(/one-time Spot/) });
    expect(mutatingCalls()).toHaveLength(0);
  });

  it('terminates a one-time Spot instance, forced, when terminating is allowed', async () => {
    // Prepare
    givenOneTimeSpot();
    ec2.on(TerminateInstancesCommand).resolves({
      TerminatingInstances: [{ InstanceId: INSTANCE_ID, PreviousState: { Name: 'running' } }],
    });

    // Act
    const outcome = await fencer.powerOff(REF, { dryRun: false, allowTerminate: true });

    // Assess
    expect(outcome).toEqual({ kind: 'requested', action: 'terminate', previousState: 'running' });
    expect(ec2.commandCalls(TerminateInstancesCommand)[0]?.args[0].input).toMatchObject({
      InstanceIds: [INSTANCE_ID],
      Force: true,
      DryRun: false,
    });
    expect(ec2.commandCalls(StopInstancesCommand)).toHaveLength(0);
  });

  it('treats UnsupportedOperation from StopInstances as a one-time Spot instance when the request type is unreadable', async () => {
    // Prepare
    givenInstance({ InstanceLifecycle: 'spot', SpotInstanceRequestId: 'sir-1' });
    ec2.on(DescribeSpotInstanceRequestsCommand).rejects(ec2Error('UnauthorizedOperation', 'not allowed'));
    ec2
      .on(StopInstancesCommand)
      .rejects(
        ec2Error(
          'UnsupportedOperation',
          'You can only stop Spot Instances associated with persistent requests',
        ),
      );
    ec2
      .on(TerminateInstancesCommand)
      .resolves({ TerminatingInstances: [{ PreviousState: { Name: 'running' } }] });

    // Act
    const refused = await fencer.powerOff(REF, { dryRun: false });
    const terminated = await fencer.powerOff(REF, { dryRun: false, allowTerminate: true });

    // Assess
    expect(refused).toMatchObject({ kind: 'not-stoppable', detail: expect.stringMatching(/persistent/) });
    expect(terminated).toEqual({ kind: 'requested', action: 'terminate', previousState: 'running' });
  });

  it('reports a dry run that EC2 refuses with UnauthorizedOperation as one that would fail', async () => {
    // Prepare
    givenInstance({});
    ec2
      .on(StopInstancesCommand)
      .rejects(ec2Error('UnauthorizedOperation', 'You are not authorized to perform this operation.', 403));

    // Act
    const outcome = await fencer.powerOff(REF, { dryRun: true });

    // Assess
    expect(outcome).toMatchObject({
      kind: 'dry-run',
      action: 'stop',
      wouldSucceed: false,
      detail: expect.stringMatching(/UnauthorizedOperation/),
    });
    expect(ec2.commandCalls(StopInstancesCommand)[0]?.args[0].input).toMatchObject({
      DryRun: true,
      Force: true,
    });
  });

  it('dry-runs the termination of a one-time Spot instance when terminating is allowed', async () => {
    // Prepare
    givenOneTimeSpot();
    ec2
      .on(TerminateInstancesCommand)
      .rejects(ec2Error('DryRunOperation', 'Request would have succeeded', 412));

    // Act
    const outcome = await fencer.powerOff(REF, { dryRun: true, allowTerminate: true });

    // Assess
    expect(outcome).toMatchObject({ kind: 'dry-run', action: 'terminate', wouldSucceed: true });
    expect(ec2.commandCalls(TerminateInstancesCommand)[0]?.args[0].input).toMatchObject({ DryRun: true });
  });

  it('reports stop protection as not stoppable instead of overriding it', async () => {
    // Prepare
    givenInstance({});
    ec2
      .on(StopInstancesCommand)
      .rejects(ec2Error('OperationNotPermitted', 'The instance has stop protection enabled'));

    // Act
    const outcome = await fencer.powerOff(REF, { dryRun: false, allowTerminate: true });

    // Assess
    expect(outcome).toMatchObject({
      kind: 'not-stoppable',
      detail: expect.stringMatching(/stop protection/),
    });
    expect(ec2.commandCalls(TerminateInstancesCommand)).toHaveLength(0);
  });

  it('leaves an instance that is shutting down alone unless terminating is allowed', async () => {
    // Prepare
    givenInstance({ State: { Name: 'shutting-down', Code: 32 } });

    // Act
    const outcome = await fencer.powerOff(REF, { dryRun: false });

    // Assess
    expect(outcome).toMatchObject({ kind: 'not-stoppable', detail: expect.stringMatching(/shutting down/) });
    expect(mutatingCalls()).toHaveLength(0);
  });

  it('forces the stop and skips the OS shutdown only when asked', async () => {
    // Prepare
    givenInstance({});
    ec2.on(StopInstancesCommand).resolves({ StoppingInstances: [{ PreviousState: { Name: 'running' } }] });

    // Act
    await fencer.powerOff(REF, { dryRun: false });
    await fencer.powerOff(REF, { dryRun: false, skipOsShutdown: true });

    // Assess
    const inputs = ec2.commandCalls(StopInstancesCommand).map((call) => call.args[0].input);
    expect(inputs[0]).toMatchObject({ Force: true, SkipOsShutdown: undefined });
    expect(inputs[1]).toMatchObject({ Force: true, SkipOsShutdown: true });
  });

  it('makes no call for an instance that is already terminated, even in a dry run', async () => {
    // Prepare
    givenInstance({ State: { Name: 'terminated', Code: 48 } });

    // Act
    const outcome = await fencer.powerOff(REF, { dryRun: true });

    // Assess
    expect(outcome).toEqual({ kind: 'already-off', state: 'terminated' });
    expect(mutatingCalls()).toHaveLength(0);
  });

  it('surfaces a stop refused mid-transition as a retryable ProviderApiError', async () => {
    // Prepare
    givenInstance({ State: { Name: 'pending', Code: 0 } });
    ec2
      .on(StopInstancesCommand)
      .rejects(
        ec2Error('IncorrectInstanceState', 'The instance is not in a state from which it can be stopped.'),
      );

    // Act
    const outcome = fencer.powerOff(REF, { dryRun: false });

    // Assess
    await expect(outcome).rejects.toMatchObject({
      name: 'ProviderApiError',
      operation: 'StopInstances',
      code: 'IncorrectInstanceState',
      retryable: true,
    });
  });
});

describe('observePower with rare answers', () => {
  it('reports a state it does not know as unknown, never as off', async () => {
    // Prepare
    givenInstance({ State: { Name: 'hibernating' as never, Code: 99 } });

    // Act
    const evidence = await fencer.observePower(REF);

    // Assess
    expect(evidence).toMatchObject({ state: 'unknown', providerState: 'hibernating' });
  });

  it('keeps the reason, the low byte of the state code and the launch time as evidence', async () => {
    // Prepare
    givenInstance({
      State: { Name: 'stopped', Code: 336 },
      StateReason: {
        Code: 'Client.InstanceInitiatedShutdown',
        Message: 'Client.InstanceInitiatedShutdown: Instance initiated shutdown',
      },
      StateTransitionReason: 'User initiated (2026-03-01 11:59:00 GMT)',
      LaunchTime: new Date('2026-02-01T00:00:00Z'),
    });

    // Act
    const evidence = await fencer.observePower(REF);

    // Assess
    expect(evidence).toEqual({
      instanceId: INSTANCE_ID,
      state: 'stopped',
      providerState: 'stopped',
      stateCode: 80,
      stateReason:
        'Client.InstanceInitiatedShutdown: Instance initiated shutdown; User initiated (2026-03-01 11:59:00 GMT)',
      launchTime: '2026-02-01T00:00:00.000Z',
      launchTimePrecision: 'second',
      lifecycle: 'on-demand',
      observedAt: NOW.toISOString(),
    });
  });

  it('reports a persistent Spot request as stoppable spot', async () => {
    // Prepare
    givenInstance({ InstanceLifecycle: 'spot', SpotInstanceRequestId: 'sir-2' });
    ec2.on(DescribeSpotInstanceRequestsCommand).resolves({ SpotInstanceRequests: [{ Type: 'persistent' }] });

    // Act
    const evidence = await fencer.observePower(REF);

    // Assess
    expect(evidence.lifecycle).toBe('spot');
  });

  it('throws a ProviderApiError, not a guess, when EC2 answers an error other than not-found', async () => {
    // Prepare
    ec2.on(DescribeInstancesCommand).rejects(ec2Error('UnauthorizedOperation', 'denied', 403));

    // Act
    const evidence = fencer.observePower(REF);

    // Assess
    await expect(evidence).rejects.toBeInstanceOf(ProviderApiError);
    await expect(evidence).rejects.toMatchObject({ code: 'UnauthorizedOperation', retryable: false });
  });

  it('reports an instance EC2 no longer knows as not found, never as another account', async () => {
    // Prepare: a terminated instance EC2 has forgotten (after about an hour).
    ec2
      .on(DescribeInstancesCommand)
      .rejects(ec2Error('InvalidInstanceID.NotFound', `The instance ID '${INSTANCE_ID}' does not exist`));

    // Act
    const inspection = await fencer.inspect(REF, 'demo');
    const verdict = await fencer.verifyOwnership(REF, 'demo');

    // Assess
    expect(inspection).toMatchObject({
      ownership: {
        owned: false,
        reason: 'not-found',
        detail: expect.stringMatching(/InvalidInstanceID.NotFound/),
      },
      power: { instanceId: INSTANCE_ID, state: 'not-found', observedAt: NOW.toISOString() },
      identity: null,
    });
    expect(verdict).toMatchObject({ owned: false, reason: 'not-found' });
  });

  it('does not read an empty DescribeInstances answer as not-found', async () => {
    // Prepare
    ec2.on(DescribeInstancesCommand).resolves({ Reservations: [] });

    // Act
    const evidence = fencer.observePower(REF);

    // Assess
    await expect(evidence).rejects.toMatchObject({ name: 'ProviderApiError', code: 'EmptyDescribeResult' });
  });

  it('refuses to ask its region about an instance in another region (that would answer not-found)', async () => {
    // Act
    const evidence = fencer.observePower({ provider: 'aws', instanceId: INSTANCE_ID, zone: 'eu-west-1a' });

    // Assess
    await expect(evidence).rejects.toBeInstanceOf(RegionMismatchError);
    expect(ec2.calls()).toHaveLength(0);
  });

  it('refuses to work through a client configured for another region', async () => {
    // Prepare
    const misconfigured = new Ec2ComputeFencer({ client, region: 'eu-west-1' });

    // Act
    const evidence = misconfigured.observePower({ provider: 'aws', instanceId: INSTANCE_ID });
    const verdict = await misconfigured.verifyOwnership({ provider: 'aws', instanceId: INSTANCE_ID }, 'demo');

    // Assess
    await expect(evidence).rejects.toBeInstanceOf(RegionMismatchError);
    expect(verdict).toMatchObject({ owned: false, reason: 'wrong-region' });
    expect(ec2.calls()).toHaveLength(0);
  });
});

describe('attachedDisks with rare attachment states', () => {
  it('maps every attachment state and counts an unknown one as attached', async () => {
    // Prepare
    givenInstance({ RootDeviceName: '/dev/xvda' });
    const attachment = (VolumeId: string, State: string, Device: string) => ({
      VolumeId,
      Attachments: [{ VolumeId, InstanceId: INSTANCE_ID, State: State as never, Device }],
    });
    ec2.on(DescribeVolumesCommand).resolves({
      Volumes: [
        attachment('vol-root', 'attached', '/dev/xvda'),
        attachment('vol-busy', 'busy', '/dev/xvdb'),
        attachment('vol-leaving', 'detaching', '/dev/xvdc'),
        attachment('vol-odd', 'wedged', '/dev/xvdd'),
        {
          VolumeId: 'vol-elsewhere',
          Attachments: [{ InstanceId: 'i-0fffffffffffffff0', State: 'attached' }],
        },
      ],
    });

    // Act
    const disks = await fencer.attachedDisks(REF);

    // Assess
    expect(disks).toEqual([
      { volumeId: 'vol-root', state: 'attached', device: '/dev/xvda', root: true },
      { volumeId: 'vol-busy', state: 'busy', device: '/dev/xvdb', root: false },
      { volumeId: 'vol-leaving', state: 'detaching', device: '/dev/xvdc', root: false },
      { volumeId: 'vol-odd', state: 'attached', device: '/dev/xvdd', root: false },
    ]);
    expect(ec2.commandCalls(DescribeVolumesCommand)[0]?.args[0].input).toMatchObject({
      Filters: [{ Name: 'attachment.instance-id', Values: [INSTANCE_ID] }],
    });
  });
});
