/**
 * Ceph's own witness through `rbd status`: the watcher addresses as Ceph prints them, read strictly
 * (an address the fencer cannot read fails the whole reading), and the tool run as a read-only user.
 * The tool here is a stand-in script that records its arguments and prints what Pacific's `rbd status
 * --format json` prints; the lab test (test/e2e/rbd-witness.test.ts) runs the real one against a real Ceph.
 */
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { planEntries } from '../../../../lib/adapters/ceph-rbd/plan.js';
import { cephRbdSettingsFromEnv } from '../../../../lib/adapters/ceph-rbd/settings.js';
import {
  parseRbdStatus,
  RbdStatusWitness,
  rbdImageOf,
  watcherIp,
} from '../../../../lib/adapters/ceph-rbd/witness.js';

describe('watcher addresses', () => {
  it.each([
    ['10.77.0.2:0/2976520395', '10.77.0.2'],
    ['v1:10.77.0.2:0/2976520395', '10.77.0.2'],
    ['[fd00::2]:0/123', 'fd00::2'],
    ['v2:[fd00::0002]:6800/9', 'fd00::2'],
  ])('reads %s as %s', (address, ip) => {
    expect(watcherIp(address)).toBe(ip);
  });

  it.each(['', 'client.4156', '10.77.0.2', '300.1.1.1:0/1', 'any:0/0'])(
    'reads nothing from %j',
    (address) => {
      expect(watcherIp(address)).toBeUndefined();
    },
  );

  it('fails the whole reading for one watcher it cannot read: a partial answer proves nothing', () => {
    const json = JSON.stringify({
      watchers: [
        { address: '10.77.0.2:0/1', client: 1 },
        { address: '?', client: 2 },
      ],
    });
    expect(() => parseRbdStatus('rbd/img', json)).toThrow(/cannot read/);
    expect(() => parseRbdStatus('rbd/img', 'rbd: error opening image')).toThrow(/not JSON/);
    expect(() => parseRbdStatus('rbd/img', '{}')).toThrow(/no watchers list/);
  });

  it('names each watcher by image, address and client', () => {
    const json = '{"watchers":[{"address":"10.77.0.2:0/2976520395","client":4156,"cookie":139912317768896}]}';
    expect(parseRbdStatus('rbd/img', json)).toEqual([
      { image: 'rbd/img', address: '10.77.0.2', client: 'client.4156' },
    ]);
  });
});

describe('the images of PersistentVolumes', () => {
  it("reads ceph-csi's pool and imageName, and nothing without both", () => {
    expect(rbdImageOf({ pool: 'rbd', imageName: 'csi-vol-1', clusterID: 'c' })).toEqual({
      pool: 'rbd',
      image: 'csi-vol-1',
    });
    expect(rbdImageOf({ pool: 'rbd' })).toBeNull();
  });
});

describe('the witness', () => {
  const fakeRbd = (stdout: string, exit = 0): { path: string; args: () => string[] } => {
    const dir = mkdtempSync(join(tmpdir(), 'fake-rbd-'));
    const path = join(dir, 'rbd');
    writeFileSync(
      path,
      `#!/bin/sh\nprintf '%s\\n' "$@" > ${dir}/args\nprintf '%s' '${stdout}'\n${exit ? `echo 'rbd: error opening image img: (13) Permission denied' >&2; exit ${exit}` : ''}\n`,
    );
    chmodSync(path, 0o755);
    return { path, args: () => readFileSync(join(dir, 'args'), 'utf8').trim().split('\n') };
  };

  it('runs `rbd status` as its read-only user, for each image, and reports every watcher', async () => {
    const rbd = fakeRbd('{"watchers":[{"address":"10.77.0.2:0/1","client":7}]}');
    const witness = new RbdStatusWitness(
      {
        user: 'kube-fencer-witness',
        keyring: '/etc/ceph/witness.keyring',
        monHost: '10.77.0.1',
        rbdPath: rbd.path,
      },
      () => new Date('2026-12-02T00:00:00Z'),
    );
    const evidence = await witness.holders([{ pool: 'rbd', image: 'img' }]);
    expect(evidence).toEqual({
      source: 'rbd status as client.kube-fencer-witness',
      observedAt: '2026-12-02T00:00:00.000Z',
      images: ['rbd/img'],
      holders: [{ image: 'rbd/img', address: '10.77.0.2', client: 'client.7' }],
    });
    expect(rbd.args()).toEqual([
      'status',
      '--format',
      'json',
      '--id',
      'kube-fencer-witness',
      '--keyring',
      '/etc/ceph/witness.keyring',
      '--mon-host',
      '10.77.0.1',
      'rbd/img',
    ]);
  });

  it('fails, naming Ceph’s words, when the tool fails: a refused read is AuthRefused', async () => {
    const rbd = fakeRbd('', 13);
    const witness = new RbdStatusWitness({ user: 'w', keyring: '/k', rbdPath: rbd.path });
    await expect(witness.holders([{ pool: 'rbd', image: 'img' }])).rejects.toMatchObject({
      fault: 'AuthRefused',
      message: expect.stringContaining('Permission denied'),
    });
  });
});

describe('settings and plan', () => {
  const base = {
    FENCER_CEPH_MGR_URL: 'https://10.77.0.1:8003',
    FENCER_CEPH_KEY_NAME: 'fencer',
    FENCER_CEPH_KEY: 'k',
    FENCER_CEPH_CA: '-----BEGIN CERTIFICATE-----\nx\n-----END CERTIFICATE-----',
  };

  it('has a witness only when its user is set', () => {
    expect(cephRbdSettingsFromEnv(base, () => '')?.witness).toBeUndefined();
    const settings = cephRbdSettingsFromEnv(
      {
        ...base,
        FENCER_CEPH_WITNESS_ID: 'w',
        FENCER_CEPH_WITNESS_KEYRING: '/k',
        FENCER_CEPH_MON_HOST: '10.77.0.1',
      },
      () => '',
    );
    expect(settings?.witness).toEqual({ user: 'w', keyring: '/k', monHost: '10.77.0.1' });
    expect(() => cephRbdSettingsFromEnv({ ...base, FENCER_CEPH_WITNESS_ID: 'client.w' }, () => '')).toThrow(
      /witness/,
    );
  });

  it('fences the addresses the witness showed, each as a single host, and never a loopback one', () => {
    const settings = { extraRanges: {}, maxAddressesPerRange: 256 };
    const target = { node: 'node-a', addresses: ['10.0.1.23'], witnessed: ['10.77.0.2'] };
    expect(planEntries(target, settings, 'range').map((e) => [e.entry, e.source])).toEqual([
      ['10.0.1.23/32', 'InternalIP 10.0.1.23'],
      ['10.77.0.2/32', "watcher address 10.77.0.2 (Ceph's witness)"],
    ]);
    expect(() => planEntries({ ...target, witnessed: ['127.0.0.1'] }, settings, 'range')).toThrow(
      /watcher address/,
    );
  });
});
