/**
 * The EC2 adapter as the functions deploy it: bundled by infra/bundling.ts, whose plugin rewrites the
 * SDK's schemas so esbuild can drop the unused ones. Every EC2 call the fencer makes, through the
 * bundle, against the emulator: a schema lost by the rewrite would fail here, not in production.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EC2Client } from '@aws-sdk/client-ec2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundle } from '../../../infra/bundling.js';
import {
  attachVolume,
  createClusterInstance,
  createVolume,
  type Ec2Emulator,
  ec2ClientFor,
  MOTO_ACCOUNT_ID,
  startEc2Emulator,
} from '../../../lab/ec2-emulator.js';
import { REPO_ROOT } from '../../../lab/paths.js';
import type * as Ec2Adapter from '../../../lib/adapters/aws-ec2/index.js';

const CLUSTER = 'lab';
const ZONE = 'us-east-1a';
const SCHEMAS_IN_PACKAGE = '@aws-sdk/client-ec2/dist-es/schemas/schemas_0.js';
const SCHEMAS = `node_modules/${SCHEMAS_IN_PACKAGE}`;

let runDir: string;
let emulator: Ec2Emulator | undefined;
let client: EC2Client;
let bundled: typeof Ec2Adapter;
let schemaBytesInBundle: number;

beforeAll(async () => {
  runDir = mkdtempSync(join(tmpdir(), 'kube-fencer-bundled-ec2-'));
  const outfile = join(runDir, 'ec2-adapter.mjs');
  const metafile = await bundle(REPO_ROOT, join('lib', 'adapters', 'aws-ec2', 'index.ts'), outfile);
  // The bundle, not its source map (written beside it).
  const output = Object.entries(metafile.outputs).find(([path]) => path.endsWith('.mjs'))?.[1];
  // Matched by its end: a node_modules that is a symlink (a git worktree's) gives esbuild another prefix.
  const schemas = Object.entries(output?.inputs ?? {}).find(([path]) => path.endsWith(SCHEMAS_IN_PACKAGE));
  schemaBytesInBundle = schemas?.[1].bytesInOutput ?? Number.NaN;
  bundled = (await import(outfile)) as typeof Ec2Adapter;
  emulator = await startEc2Emulator({ runDir });
  client = ec2ClientFor(emulator);
});

afterAll(async () => {
  client?.destroy();
  await emulator?.stop();
  if (emulator) rmSync(runDir, { recursive: true, force: true });
});

describe('the bundled EC2 adapter', () => {
  it('keeps only a small part of the EC2 schemas', () => {
    const source = readFileSync(join(REPO_ROOT, SCHEMAS), 'utf8').length;
    expect(schemaBytesInBundle).toBeLessThan(source / 5);
  });

  it('verifies ownership, reads power, batches, lists and describes disks, and stops, with its own SDK client', async () => {
    const emulated = emulator as Ec2Emulator;
    const ec2 = bundled.createEc2Client(emulated.region, {
      endpoint: emulated.endpoint,
      credentials: { accessKeyId: emulated.accessKeyId, secretAccessKey: emulated.secretAccessKey },
    });
    const fencer = new bundled.Ec2ComputeFencer({
      client: ec2,
      region: emulated.region,
      accountId: MOTO_ACCOUNT_ID,
    });
    const worker = await createClusterInstance(client, { cluster: CLUSTER, zone: ZONE, name: 'bundled' });
    const volumeId = await createVolume(client, { zone: ZONE, sizeGiB: 4, cluster: CLUSTER });
    await attachVolume(client, { volumeId, instanceId: worker.instanceId, device: '/dev/xvdf' });
    const ref = fencer.parseProviderId(worker.providerId);

    const ownership = await fencer.verifyOwnership(ref, CLUSTER);
    const before = await fencer.observePower(ref);
    const dryRun = await fencer.powerOff(ref, { dryRun: true });
    const stop = await fencer.powerOff(ref, { dryRun: false, skipOsShutdown: true });
    const after = await fencer.observePower(ref);
    const many = await fencer.observePowerMany?.([ref]);
    const disks = await fencer.attachedDisks(ref);
    const described = await fencer.describeDisks?.([volumeId]);
    ec2.destroy();

    expect(ownership).toMatchObject({ owned: true });
    expect(before).toMatchObject({ state: 'running', stateCode: 16 });
    expect(dryRun).toMatchObject({ kind: 'dry-run', wouldSucceed: true });
    expect(stop).toEqual({ kind: 'requested', action: 'stop', previousState: 'running' });
    expect(after).toMatchObject({ state: 'stopped', stateCode: 80, launchTime: before.launchTime });
    expect(many?.results.get(worker.instanceId)).toMatchObject({ ok: true, value: { state: 'stopped' } });
    expect(disks).toEqual(expect.arrayContaining([expect.objectContaining({ volumeId, state: 'attached' })]));
    expect(described?.results.get(volumeId)).toMatchObject({
      ok: true,
      value: { exists: true, attachments: [expect.objectContaining({ instanceId: worker.instanceId })] },
    });
  });
});
