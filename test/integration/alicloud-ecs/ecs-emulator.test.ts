/**
 * The lab's ECS emulator, driven by the real SDK (@alicloud/ecs20140526 over HTTP): signatures verified
 * the way Alibaba verifies them, the instance and disk state machines, paging, and injected faults.
 */

import { $OpenApiUtil } from '@alicloud/openapi-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EcsEmulator, FENCER_KEY, startEcsEmulatorInProcess } from '../../../lab/ecs-emulator/index.js';
import { ecsClientFor } from '../../../lab/ecs-emulator/sdk.js';
import { eventually } from '../../../lab/kube-wait.js';
import type { EcsClient } from '../../../lib/adapters/alicloud-ecs/index.js';
import { Ecs as E, EcsClientClass } from '../../../lib/adapters/alicloud-ecs/sdk.js';

const REGION = 'cn-hangzhou';
const ZONE = 'cn-hangzhou-i';
const STS = {
  accessKeyId: 'STS.NUgYrLnoC37mZZCNnAbez2GuC',
  accessKeySecret: 'sts-secret',
  securityToken: 'CAIS-token-of-the-role',
};

let emulator: EcsEmulator;
let lab: EcsClient;

beforeAll(async () => {
  emulator = await startEcsEmulatorInProcess({
    region: REGION,
    delays: { stopMs: 300, startMs: 300, attachMs: 100, detachMs: 100 },
    principals: [{ accessKeyId: 'LAB', accessKeySecret: 'lab-secret' }, FENCER_KEY, STS],
  });
  lab = ecsClientFor(emulator, { accessKeyId: 'LAB', accessKeySecret: 'lab-secret' });
});
afterAll(async () => {
  await emulator?.stop();
});

const clientWith = (config: Record<string, unknown>): EcsClient => {
  const host = emulator.endpoint.replace('http://', '');
  return new EcsClientClass(
    new $OpenApiUtil.Config({
      regionId: REGION,
      endpoint: host,
      protocol: 'http',
      connectTimeout: 3000,
      readTimeout: 5000,
      ...config,
    }),
  );
};

const describeOne = async (client: EcsClient, id: string) =>
  (
    await client.describeInstances(
      new E.DescribeInstancesRequest({ regionId: REGION, instanceIds: JSON.stringify([id]) }),
    )
  ).body?.instances?.instance?.[0];

const failureOf = async (call: Promise<unknown>) => {
  try {
    await call;
  } catch (error) {
    const e = error as {
      name: string;
      code: string;
      statusCode: number;
      requestId: string;
      retryAfter?: number;
    };
    return {
      name: e.name,
      code: e.code,
      statusCode: e.statusCode,
      requestId: e.requestId,
      retryAfter: e.retryAfter,
    };
  }
  throw new Error('the call succeeded');
};

describe('signatures', () => {
  it('accepts ACS3-HMAC-SHA256 and legacy HMAC-SHA1 signed requests, and STS credentials with their token', async () => {
    const { InstanceId } = await emulator.admin.createInstance({ zoneId: ZONE });
    expect((await describeOne(lab, InstanceId))?.instanceId).toBe(InstanceId);
    const legacy = clientWith({
      accessKeyId: 'LAB',
      accessKeySecret: 'lab-secret',
      signatureAlgorithm: 'v2',
    });
    expect((await describeOne(legacy, InstanceId))?.instanceId).toBe(InstanceId);
    const sts = clientWith({
      accessKeyId: STS.accessKeyId,
      accessKeySecret: STS.accessKeySecret,
      securityToken: STS.securityToken,
    });
    expect((await describeOne(sts, InstanceId))?.instanceId).toBe(InstanceId);
  });

  it('refuses a wrong secret, an unknown key and a foreign STS token the way Alibaba does', async () => {
    const wrongSecret = clientWith({ accessKeyId: 'LAB', accessKeySecret: 'not-the-secret' });
    expect(await failureOf(describeOne(wrongSecret, 'i-x'))).toMatchObject({
      name: 'ClientError',
      code: 'SignatureDoesNotMatch',
      statusCode: 400,
    });
    const legacyWrong = clientWith({
      accessKeyId: 'LAB',
      accessKeySecret: 'not-the-secret',
      signatureAlgorithm: 'v2',
    });
    expect(await failureOf(describeOne(legacyWrong, 'i-x'))).toMatchObject({
      code: 'SignatureDoesNotMatch',
      statusCode: 400,
    });
    const unknown = clientWith({ accessKeyId: 'LTAI-nobody', accessKeySecret: 'x' });
    expect(await failureOf(describeOne(unknown, 'i-x'))).toMatchObject({
      code: 'InvalidAccessKeyId.NotFound',
      statusCode: 404,
    });
    const foreignToken = clientWith({
      accessKeyId: STS.accessKeyId,
      accessKeySecret: STS.accessKeySecret,
      securityToken: 'another-role',
    });
    expect(await failureOf(describeOne(foreignToken, 'i-x'))).toMatchObject({
      code: 'InvalidSecurityToken.MismatchWithAccessKey',
    });
  });

  it('refuses a request whose query was changed after signing, and a replayed nonce', async () => {
    const { InstanceId } = await emulator.admin.createInstance({ zoneId: ZONE });
    const requests: { url: string; headers: Record<string, string> }[] = [];
    // Capture the exact bytes the SDK sends by pointing it at a recorder, then replay them.
    const { createServer } = await import('node:http');
    const recorder = createServer((req, res) => {
      requests.push({ url: req.url ?? '', headers: req.headers as Record<string, string> });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"RequestId":"r"}');
    });
    await new Promise<void>((resolve) => recorder.listen(0, '127.0.0.1', resolve));
    const port = (recorder.address() as { port: number }).port;
    const recorded = new EcsClientClass(
      new $OpenApiUtil.Config({
        accessKeyId: 'LAB',
        accessKeySecret: 'lab-secret',
        regionId: REGION,
        endpoint: `127.0.0.1:${port}`,
        protocol: 'http',
        connectTimeout: 3000,
        readTimeout: 3000,
      }),
    );
    await recorded.describeInstances(
      new E.DescribeInstancesRequest({ regionId: REGION, instanceIds: JSON.stringify([InstanceId]) }),
    );
    recorder.close();
    const [sent] = requests;
    if (!sent) throw new Error('nothing recorded');
    // node:http, not fetch: the signed Host header must go out as recorded.
    const { request } = await import('node:http');
    const replay = (url: string) =>
      new Promise<{ status: number; body: { Code?: string; RequestId?: string } }>((resolve, reject) => {
        const req = request(
          `${emulator.endpoint}${url}`,
          { method: 'POST', headers: sent.headers },
          (res) => {
            let text = '';
            res.on('data', (c: Buffer) => {
              text += c.toString();
            });
            res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
          },
        );
        req.on('error', reject);
        req.end();
      });
    const tampered = await replay(
      sent.url.replace(encodeURIComponent(InstanceId), encodeURIComponent('i-someoneelse0000000000')),
    );
    expect(tampered).toMatchObject({ status: 400, body: { Code: 'SignatureDoesNotMatch' } });
    expect(tampered.body.RequestId).toMatch(/^[0-9A-F-]{36}$/);
    const first = await replay(sent.url);
    expect(first.status).toBe(200);
    expect(await replay(sent.url)).toMatchObject({ status: 400, body: { Code: 'SignatureNonceUsed' } });
  });
});

describe('instances', () => {
  it('goes Running → Stopping → Stopped on a forced StopInstances, and refuses a second stop with IncorrectInstanceStatus', async () => {
    const { InstanceId } = await emulator.admin.createInstance({
      zoneId: ZONE,
      tags: { 'ack.aliyun.com': 'c1' },
    });
    const stop = (mode: string) =>
      lab.stopInstances(
        new E.StopInstancesRequest({
          regionId: REGION,
          instanceId: [InstanceId],
          forceStop: true,
          batchOptimization: mode,
          stoppedMode: 'KeepCharging',
        }),
      );
    const answer = await stop('SuccessFirst');
    expect(answer.body?.instanceResponses?.instanceResponse).toEqual([
      expect.objectContaining({
        instanceId: InstanceId,
        code: '200',
        previousStatus: 'Running',
        currentStatus: 'Stopping',
      }),
    ]);
    expect((await describeOne(lab, InstanceId))?.status).toBe('Stopping');
    const again = await stop('SuccessFirst');
    expect(again.body?.instanceResponses?.instanceResponse?.[0]?.code).toBe('IncorrectInstanceStatus');
    expect(await failureOf(stop('AllTogether'))).toMatchObject({
      code: 'IncorrectInstanceStatus',
      statusCode: 403,
    });
    await eventually('Stopped', async () =>
      (await describeOne(lab, InstanceId))?.status === 'Stopped' ? true : undefined,
    );
    const stopped = await describeOne(lab, InstanceId);
    expect(stopped?.stoppedMode).toBe('KeepCharging');
    expect(stopped?.startTime).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}Z$/);
  });

  it('answers DryRun without acting, and StartInstance brings a stopped instance back through Starting', async () => {
    const { InstanceId } = await emulator.admin.createInstance({ zoneId: ZONE });
    expect(
      await failureOf(
        lab.stopInstances(
          new E.StopInstancesRequest({ regionId: REGION, instanceId: [InstanceId], dryRun: true }),
        ),
      ),
    ).toMatchObject({ code: 'DRYRUN.SUCCESS' });
    expect(
      await failureOf(lab.stopInstance(new E.StopInstanceRequest({ instanceId: InstanceId, dryRun: true }))),
    ).toMatchObject({ code: 'DryRunOperation' });
    expect((await describeOne(lab, InstanceId))?.status).toBe('Running');
    await lab.stopInstance(new E.StopInstanceRequest({ instanceId: InstanceId, forceStop: true }));
    await eventually('Stopped', async () =>
      (await describeOne(lab, InstanceId))?.status === 'Stopped' ? true : undefined,
    );
    await lab.startInstance(new E.StartInstanceRequest({ instanceId: InstanceId }));
    expect((await describeOne(lab, InstanceId))?.status).toBe('Starting');
    await eventually('Running', async () =>
      (await describeOne(lab, InstanceId))?.status === 'Running' ? true : undefined,
    );
  });

  it('leaves unknown ids out of DescribeInstances, and answers InvalidInstanceId.NotFound about one', async () => {
    const answer = await lab.describeInstances(
      new E.DescribeInstancesRequest({
        regionId: REGION,
        instanceIds: JSON.stringify(['i-bpnosuchinstance00000']),
      }),
    );
    expect(answer.body?.totalCount).toBe(0);
    expect(
      await failureOf(
        lab.describeInstanceAttribute(
          new E.DescribeInstanceAttributeRequest({ instanceId: 'i-bpnosuchinstance00000' }),
        ),
      ),
    ).toMatchObject({ code: 'InvalidInstanceId.NotFound', statusCode: 404 });
  });

  it('pages DescribeInstances with MaxResults and NextToken', async () => {
    const tag = `page-${Date.now()}`;
    const ids = new Set<string>();
    for (let i = 0; i < 5; i++)
      ids.add((await emulator.admin.createInstance({ zoneId: ZONE, tags: { batch: tag } })).InstanceId);
    const seen: string[] = [];
    let nextToken: string | undefined;
    let pages = 0;
    do {
      const answer = await lab.describeInstances(
        new E.DescribeInstancesRequest({
          regionId: REGION,
          maxResults: 2,
          tag: [new E.DescribeInstancesRequestTag({ key: 'batch', value: tag })],
          ...(nextToken ? { nextToken } : {}),
        }),
      );
      seen.push(...(answer.body?.instances?.instance ?? []).map((i) => i.instanceId ?? ''));
      nextToken = answer.body?.nextToken || undefined;
      pages++;
    } while (nextToken);
    expect(pages).toBe(3);
    expect(new Set(seen)).toEqual(ids);
  });
});

describe('disks', () => {
  it('attaches through Attaching, refuses a second attach elsewhere, and detaches through Detaching', async () => {
    const a = await emulator.admin.createInstance({ zoneId: ZONE });
    const b = await emulator.admin.createInstance({ zoneId: ZONE });
    const created = await lab.createDisk(
      new E.CreateDiskRequest({ regionId: REGION, zoneId: ZONE, size: 20, diskCategory: 'cloud_essd' }),
    );
    const diskId = created.body?.diskId ?? '';
    const disk = async () =>
      (
        await lab.describeDisks(
          new E.DescribeDisksRequest({ regionId: REGION, diskIds: JSON.stringify([diskId]) }),
        )
      ).body?.disks?.disk?.[0];
    await lab.attachDisk(new E.AttachDiskRequest({ instanceId: a.InstanceId, diskId }));
    expect((await disk())?.status).toBe('Attaching');
    await eventually('In_use', async () => ((await disk())?.status === 'In_use' ? true : undefined));
    expect((await disk())?.instanceId).toBe(a.InstanceId);
    expect(
      await failureOf(lab.attachDisk(new E.AttachDiskRequest({ instanceId: b.InstanceId, diskId }))),
    ).toMatchObject({ code: 'IncorrectDiskStatus', statusCode: 403 });
    const onA = await lab.describeDisks(
      new E.DescribeDisksRequest({ regionId: REGION, instanceId: a.InstanceId }),
    );
    expect(onA.body?.disks?.disk?.map((d) => d.type).sort()).toEqual(['data', 'system']);
    await lab.detachDisk(new E.DetachDiskRequest({ instanceId: a.InstanceId, diskId }));
    expect((await disk())?.status).toBe('Detaching');
    await eventually('Available', async () => ((await disk())?.status === 'Available' ? true : undefined));
    expect((await disk())?.instanceId).toBe('');
  });
});

describe('faults', () => {
  it('throttles only the calls of the key it targets, with Retry-After, for as many calls as asked', async () => {
    const { InstanceId } = await emulator.admin.createInstance({ zoneId: ZONE });
    const fencer = ecsClientFor(emulator, FENCER_KEY);
    await emulator.admin.injectFaults({
      action: 'DescribeInstances',
      accessKeyId: FENCER_KEY.accessKeyId,
      status: 400,
      code: 'Throttling.User',
      message: 'Request was denied due to user flow control.',
      retryAfterMs: 250,
      times: 2,
    });
    expect((await describeOne(lab, InstanceId))?.instanceId).toBe(InstanceId);
    expect(await failureOf(describeOne(fencer, InstanceId))).toMatchObject({
      name: 'ThrottlingError',
      code: 'Throttling.User',
      retryAfter: 250,
    });
    expect(await failureOf(describeOne(fencer, InstanceId))).toMatchObject({ name: 'ThrottlingError' });
    expect((await describeOne(fencer, InstanceId))?.instanceId).toBe(InstanceId);
  });

  it('keeps a stop in Stopping for good when told to', async () => {
    const { InstanceId } = await emulator.admin.createInstance({ zoneId: ZONE });
    await emulator.admin.patchInstance(InstanceId, { stuckInStopping: true });
    await lab.stopInstance(new E.StopInstanceRequest({ instanceId: InstanceId, forceStop: true }));
    await new Promise((r) => setTimeout(r, 800));
    expect((await describeOne(lab, InstanceId))?.status).toBe('Stopping');
  });

  it('refuses to stop an instance with a security lock', async () => {
    const { InstanceId } = await emulator.admin.createInstance({
      zoneId: ZONE,
      locks: [{ lockReason: 'security', lockMsg: 'locked by the security center' }],
    });
    expect(
      await failureOf(
        lab.stopInstance(new E.StopInstanceRequest({ instanceId: InstanceId, forceStop: true })),
      ),
    ).toMatchObject({ code: 'InstanceLockedForSecurity', statusCode: 403 });
    expect((await describeOne(lab, InstanceId))?.operationLocks?.lockReason?.[0]?.lockReason).toBe(
      'security',
    );
  });
});
