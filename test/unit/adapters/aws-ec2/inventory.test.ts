/**
 * Batched EC2 reads for sweeps, against a MOCK EC2 (aws-sdk-client-mock) with EC2's documented
 * answers: at most 1000 instances and 200 volumes per call, unknown ids proven gone only by EC2's own
 * NotFound, and a call budget that is never exceeded.
 */
import {
  DescribeInstancesCommand,
  DescribeVolumesCommand,
  EC2Client,
  EC2ServiceException,
} from '@aws-sdk/client-ec2';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { Ec2ComputeFencer } from '../../../../lib/adapters/aws-ec2/ec2-compute-fencer.js';
import { describeInstancesBatch, describeVolumesBatch } from '../../../../lib/adapters/aws-ec2/inventory.js';

const NOW = () => new Date('2026-03-01T12:00:00.000Z');
const client = new EC2Client({
  region: 'us-east-1',
  credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
});
const ec2 = mockClient(client);
const notFound = (code: string, message: string) =>
  new EC2ServiceException({ name: code, $fault: 'client', $metadata: { httpStatusCode: 400 }, message });
const id = (i: number) => `i-${i.toString(16).padStart(17, '0')}`;

beforeEach(() => ec2.reset());

describe('describeInstancesBatch', () => {
  it('asks for 2,500 instances in three calls of at most 1000 ids', async () => {
    ec2.on(DescribeInstancesCommand).callsFake((input: { InstanceIds: string[] }) => ({
      Reservations: [
        {
          Instances: input.InstanceIds.map((i) => ({ InstanceId: i, State: { Name: 'running', Code: 16 } })),
        },
      ],
    }));
    const ids = Array.from({ length: 2500 }, (_, i) => id(i));

    const answer = await describeInstancesBatch(client, ids, NOW);

    expect(answer.calls).toBe(3);
    expect(
      ec2.commandCalls(DescribeInstancesCommand).map((c) => c.args[0].input.InstanceIds?.length),
    ).toEqual([1000, 1000, 500]);
    expect(answer.results.get(id(2499))).toMatchObject({ ok: true, value: { state: 'running' } });
  });

  it('proves the ids EC2 names in InvalidInstanceID.NotFound gone, and asks again for the rest', async () => {
    ec2
      .on(DescribeInstancesCommand)
      .rejectsOnce(notFound('InvalidInstanceID.NotFound', `The instance IDs '${id(2)}' do not exist`))
      .resolves({
        Reservations: [{ Instances: [{ InstanceId: id(1), State: { Name: 'stopped', Code: 80 } }] }],
      });

    const answer = await describeInstancesBatch(client, [id(1), id(2)], NOW);

    expect(answer.results.get(id(2))).toMatchObject({ ok: true, value: { state: 'not-found' } });
    expect(answer.results.get(id(1))).toMatchObject({ ok: true, value: { state: 'stopped' } });
    expect(ec2.commandCalls(DescribeInstancesCommand)[1]?.args[0].input.InstanceIds).toEqual([id(1)]);
  });

  it('never treats a throttled call as proof of anything', async () => {
    ec2.on(DescribeInstancesCommand).rejects(notFound('RequestLimitExceeded', 'Request limit exceeded.'));
    const answer = await describeInstancesBatch(client, [id(1)], NOW);
    expect(answer.results.get(id(1))).toMatchObject({ ok: false, error: { name: 'RequestLimitExceeded' } });
  });

  it('stops at the call budget and reports the ids it did not ask about', async () => {
    ec2.on(DescribeInstancesCommand).resolves({ Reservations: [] });
    const ids = Array.from({ length: 3000 }, (_, i) => id(i));
    const answer = await describeInstancesBatch(client, ids, NOW, 2);
    expect(answer.calls).toBe(2);
    expect(answer.results.get(id(2999))).toMatchObject({ ok: false, error: { name: 'CallBudgetExhausted' } });
  });
});

describe('describeVolumesBatch', () => {
  it('does not ask EC2 about a handle that is not an EBS volume id (a Ceph image, say)', async () => {
    const answer = await describeVolumesBatch(client, ['0001-0009-rook-ceph-0000000000000002-abc'], NOW);
    expect(answer.results.get('0001-0009-rook-ceph-0000000000000002-abc')).toMatchObject({
      ok: false,
      error: { name: 'NotAnEbsVolume' },
    });
    expect(answer.calls).toBe(0);
  });

  it('asks 200 volumes per call by filter and reports where each is attached', async () => {
    ec2.on(DescribeVolumesCommand).callsFake((input: { Filters: { Values: string[] }[] }) => ({
      Volumes: (input.Filters[0]?.Values ?? []).map((v) => ({
        VolumeId: v,
        State: 'in-use',
        Attachments: [{ InstanceId: id(7), State: 'attached', Device: '/dev/xvdf' }],
      })),
    }));
    const ids = Array.from({ length: 450 }, (_, i) => `vol-${i.toString(16).padStart(17, '0')}`);

    const answer = await describeVolumesBatch(client, ids, NOW);

    expect(answer.calls).toBe(3);
    expect(answer.results.get(ids[0] as string)).toMatchObject({
      ok: true,
      value: {
        exists: true,
        providerState: 'in-use',
        attachments: [{ instanceId: id(7), state: 'attached' }],
      },
    });
  });

  it('proves a volume absent from the filtered answer gone only by its own InvalidVolume.NotFound', async () => {
    ec2
      .on(DescribeVolumesCommand, { Filters: [{ Name: 'volume-id', Values: ['vol-0123456789abcdef0'] }] })
      .resolves({ Volumes: [] });
    ec2
      .on(DescribeVolumesCommand, { VolumeIds: ['vol-0123456789abcdef0'] })
      .rejects(notFound('InvalidVolume.NotFound', 'The volume vol-0123456789abcdef0 does not exist.'));

    const answer = await describeVolumesBatch(client, ['vol-0123456789abcdef0'], NOW);

    expect(answer.results.get('vol-0123456789abcdef0')).toMatchObject({
      ok: true,
      value: { exists: false, attachments: [] },
    });
    expect(answer.calls).toBe(2);
  });
});

describe('Ec2ComputeFencer.observePowerMany', () => {
  it('answers a machine of another region with a fault, never with "not found" (which would read as proof)', async () => {
    ec2.on(DescribeInstancesCommand).resolves({
      Reservations: [{ Instances: [{ InstanceId: id(1), State: { Name: 'running', Code: 16 } }] }],
    });
    const fencer = new Ec2ComputeFencer({ client, region: 'us-east-1', now: NOW });

    const answer = await fencer.observePowerMany([
      { provider: 'aws', instanceId: id(1), zone: 'us-east-1a' },
      { provider: 'aws', instanceId: id(2), zone: 'eu-west-1a' },
    ]);

    expect(answer.results.get(id(1))).toMatchObject({ ok: true, value: { state: 'running' } });
    expect(answer.results.get(id(2))).toMatchObject({
      ok: false,
      error: { message: expect.stringContaining('eu-west-1a') },
    });
    expect(ec2.commandCalls(DescribeInstancesCommand).map((c) => c.args[0].input.InstanceIds)).toEqual([
      [id(1)],
    ]);
  });
});
