/**
 * The ECS adapter as an Alibaba function would deploy it: bundled with the slim-alibaba-ecs plugin,
 * which keeps only the SDK models and client methods of ECS_OPERATIONS. Every operation the fencer
 * calls, through the bundle, against the emulator: one the plugin dropped would fail here.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundle, pruneEcsClient, slimAlibabaEcs } from '../../../infra/bundling.js';
import { type EcsEmulator, FENCER_KEY, startEcsEmulatorInProcess } from '../../../lab/ecs-emulator/index.js';
import { eventually } from '../../../lab/kube-wait.js';
import { REPO_ROOT } from '../../../lab/paths.js';
import type * as EcsAdapter from '../../../lib/adapters/alicloud-ecs/index.js';
import { ECS_OPERATIONS } from '../../../lib/adapters/alicloud-ecs/index.js';

const REGION = 'cn-hangzhou';
const ZONE = 'cn-hangzhou-i';

let dir: string;
let emulator: EcsEmulator;
let bundled: typeof EcsAdapter;
let bytes: number;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'kube-fencer-bundled-ecs-'));
  const outfile = join(dir, 'ecs-adapter.mjs');
  await bundle(REPO_ROOT, join('lib', 'adapters', 'alicloud-ecs', 'index.ts'), outfile, [
    slimAlibabaEcs(ECS_OPERATIONS),
  ]);
  bytes = statSync(outfile).size;
  bundled = (await import(outfile)) as typeof EcsAdapter;
  emulator = await startEcsEmulatorInProcess({ region: REGION, delays: { stopMs: 200 } });
});
afterAll(async () => {
  await emulator?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('the bundled ECS adapter', () => {
  it('is a fraction of the SDK’s size: the other 3,400 models and 750 client methods are gone', () => {
    expect(bytes).toBeLessThan(1_000_000);
  });

  it('makes every ECS call the fencer makes: describe, confirm absence, stop, disks', async () => {
    const fencer = new bundled.EcsComputeFencer({
      region: REGION,
      endpoint: emulator.endpoint,
      credentials: FENCER_KEY,
    });
    const instance = await emulator.admin.createInstance({ zoneId: ZONE, tags: { 'ack.aliyun.com': 'c1' } });
    const gone = await emulator.admin.createInstance({ zoneId: ZONE });
    await emulator.admin.releaseInstance(gone.InstanceId);
    const ref = fencer.parseProviderId(`${REGION}.${instance.InstanceId}`);

    expect((await fencer.inspect(ref, 'c1')).ownership).toMatchObject({ owned: true });
    expect((await fencer.observePower(fencer.parseProviderId(`${REGION}.${gone.InstanceId}`))).state).toBe(
      'not-found',
    );
    expect(await fencer.attachedDisks(ref)).toEqual([
      expect.objectContaining({ root: true, state: 'attached' }),
    ]);
    expect(await fencer.powerOff(ref, { dryRun: false })).toMatchObject({ kind: 'requested' });
    await eventually('Stopped', async () =>
      (await fencer.observePower(ref)).state === 'stopped' ? true : undefined,
    );
    const actions = new Set((await emulator.admin.requests()).map((r) => r.action));
    expect([...actions].sort()).toEqual([...ECS_OPERATIONS].sort());
  });
});

describe('pruneEcsClient', () => {
  const source = [
    '"use strict";',
    'class Client extends openapi_core_1.default {',
    '    constructor(config) {',
    '        super(config);',
    '    }',
    '    getEndpoint(a) {',
    '        return a;',
    '    }',
    '    /**',
    '     * @param request - StopInstancesRequest',
    '     */',
    '    async stopInstancesWithOptions(request, runtime) {',
    '        return 1;',
    '    }',
    '    /**',
    '     * doc',
    '     */',
    '    async stopInstances(request) {',
    '        return 2;',
    '    }',
    '    /**',
    '     * doc',
    '     */',
    '    async startInstances(request) {',
    '        return 3;',
    '    }',
    '}',
    'exports.default = Client;',
  ].join('\n');

  it('keeps the listed operations and the class plumbing, and drops the rest', () => {
    const pruned = pruneEcsClient(source, ['StopInstances']);
    expect(pruned).toContain('async stopInstancesWithOptions(');
    expect(pruned).toContain('async stopInstances(request)');
    expect(pruned).toContain('getEndpoint(a)');
    expect(pruned).not.toContain('startInstances');
    expect(pruned.endsWith('}\nexports.default = Client;')).toBe(true);
  });

  it('fails the build when an operation is missing rather than ship a client without it', () => {
    expect(() => pruneEcsClient(source, ['StopInstances', 'DescribeDisks'])).toThrow(
      /found 2 of the 4 methods/,
    );
  });
});
