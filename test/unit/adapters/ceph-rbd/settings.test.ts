import { describe, expect, it } from 'vitest';
import { CephInputError } from '../../../../lib/adapters/ceph-rbd/errors.js';
import {
  CEPH_ENV,
  cephNetworkFenceSettingsFromEnv,
  cephRbdSettingsFromEnv,
  parseCephRbdSettings,
} from '../../../../lib/adapters/ceph-rbd/settings.js';

const PEM = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
const minimal = { mgrUrl: 'https://10.0.0.5:8003/', keyName: 'kube-fencer', key: 'a1b2c3-secret', ca: PEM };

describe('parseCephRbdSettings', () => {
  it('fills the documented defaults', () => {
    expect(parseCephRbdSettings(minimal)).toEqual({
      ...minimal,
      serverName: 'ceph-restful',
      standbyMgrUrls: [],
      timeoutMs: 10_000,
      attempts: 3,
      backoffMs: 250,
      blocklistExpireSeconds: 7 * 86_400,
      minRemainingSeconds: 86_400,
      dialect: 'auto',
      extraRanges: {},
      csiDrivers: [],
      clusterIds: [],
      maxAddressesPerRange: 256,
    });
  });

  it('rejects plain http, unknown keys and a non-PEM certificate, naming each', () => {
    const attempt = () =>
      parseCephRbdSettings({ ...minimal, mgrUrl: 'http://10.0.0.5:8003/', ca: 'pinned', verify: false });
    expect(attempt).toThrow(CephInputError);
    expect(attempt).toThrow(/mgrUrl: must be an https:\/\/ URL/);
    expect(attempt).toThrow(/ca: must be a PEM certificate/);
    expect(attempt).toThrow(/verify/);
  });

  it('never puts the key in its message', () => {
    expect(() => parseCephRbdSettings({ ...minimal, keyName: '' })).toThrow(CephInputError);
    try {
      parseCephRbdSettings({ ...minimal, keyName: '' });
    } catch (error) {
      expect((error as Error).message).not.toContain('a1b2c3-secret');
    }
  });

  it('wants the expiry longer than the margin a proof needs', () => {
    expect(() =>
      parseCephRbdSettings({ ...minimal, blocklistExpireSeconds: 7200, minRemainingSeconds: 7200 }),
    ).toThrow(/minRemainingSeconds must be shorter/);
  });

  it('canonicalises configured ranges and refuses dangerous ones', () => {
    expect(
      parseCephRbdSettings({ ...minimal, extraRanges: { 'node-a': ['10.1.0.0/24'] } }).extraRanges,
    ).toEqual({
      'node-a': ['10.1.0.0/24'],
    });
    expect(() => parseCephRbdSettings({ ...minimal, extraRanges: { 'node-a': ['10.0.0.0/8'] } })).toThrow(
      /wider than \/16/,
    );
    expect(() => parseCephRbdSettings({ ...minimal, extraRanges: { 'node-a': ['127.0.0.1/32'] } })).toThrow(
      /loopback/,
    );
  });
});

describe('cephRbdSettingsFromEnv', () => {
  const files: Record<string, string> = { '/secrets/key': 'from-file\n', '/secrets/ca.pem': PEM };
  const readText = (path: string): string => {
    const text = files[path];
    if (text === undefined) throw new Error('ENOENT: no such file');
    return text;
  };

  it('is undefined when no mgr is configured (no Ceph fencing)', () => {
    expect(cephRbdSettingsFromEnv({}, readText)).toBeUndefined();
  });

  it('reads the key and the certificate from files, as mounted secrets, and every mgr’s URL', () => {
    const settings = cephRbdSettingsFromEnv(
      {
        [CEPH_ENV.mgrUrl]: `${minimal.mgrUrl}, https://10.0.0.6:8003/`,
        [CEPH_ENV.keyName]: 'kube-fencer',
        [CEPH_ENV.keyFile]: '/secrets/key',
        [CEPH_ENV.caFile]: '/secrets/ca.pem',
        [CEPH_ENV.extraRanges]: '{"node-a":["10.1.0.0/24"]}',
        [CEPH_ENV.expireSeconds]: '172800',
      },
      readText,
    );
    expect(settings).toMatchObject({
      mgrUrl: minimal.mgrUrl,
      standbyMgrUrls: ['https://10.0.0.6:8003/'],
      key: 'from-file',
      ca: PEM.trim(),
      extraRanges: { 'node-a': ['10.1.0.0/24'] },
      blocklistExpireSeconds: 172_800,
    });
  });

  it('reads the ceph-csi clusterIDs this Ceph cluster serves, comma-separated, and refuses a malformed one', () => {
    const base = {
      [CEPH_ENV.mgrUrl]: minimal.mgrUrl,
      [CEPH_ENV.keyName]: 'k',
      [CEPH_ENV.key]: 'x',
      [CEPH_ENV.ca]: PEM,
    };
    expect(
      cephRbdSettingsFromEnv({ ...base, [CEPH_ENV.clusterIds]: 'rook-ceph, 7635de36-ab1f' }, readText)
        ?.clusterIds,
    ).toEqual(['rook-ceph', '7635de36-ab1f']);
    expect(cephRbdSettingsFromEnv(base, readText)?.clusterIds).toEqual([]);
    expect(() => cephRbdSettingsFromEnv({ ...base, [CEPH_ENV.clusterIds]: 'a,,b' }, readText)).toThrow(
      /clusterIds\.1: a ceph-csi clusterID/,
    );
  });

  it('refuses a key given twice, an unreadable file, and ranges that are not JSON', () => {
    const base = { [CEPH_ENV.mgrUrl]: minimal.mgrUrl, [CEPH_ENV.keyName]: 'k', [CEPH_ENV.ca]: PEM };
    expect(() =>
      cephRbdSettingsFromEnv({ ...base, [CEPH_ENV.key]: 'x', [CEPH_ENV.keyFile]: '/secrets/key' }, readText),
    ).toThrow(/not both/);
    expect(() => cephRbdSettingsFromEnv({ ...base, [CEPH_ENV.keyFile]: '/nope' }, readText)).toThrow(
      /cannot read/,
    );
    expect(() =>
      cephRbdSettingsFromEnv(
        { ...base, [CEPH_ENV.key]: 'x', [CEPH_ENV.extraRanges]: 'node-a=10.1.0.0/24' },
        readText,
      ),
    ).toThrow(/not JSON/);
  });
});

describe('cephNetworkFenceSettingsFromEnv', () => {
  const witness = {
    [CEPH_ENV.witnessUser]: 'kube-fencer-witness',
    [CEPH_ENV.witnessKeyring]: '/etc/ceph/w.keyring',
  };

  it('is undefined without a NetworkFenceClass, and reads one with the witness and the shared scope', () => {
    expect(cephNetworkFenceSettingsFromEnv(witness)).toBeUndefined();
    expect(
      cephNetworkFenceSettingsFromEnv({
        ...witness,
        [CEPH_ENV.networkFenceClass]: 'ceph-rbd-networkfence',
        [CEPH_ENV.clusterIds]: 'rook-ceph',
      }),
    ).toEqual({
      networkFenceClass: 'ceph-rbd-networkfence',
      fenceTimeoutSeconds: 15,
      minRemainingSeconds: 86_400,
      extraRanges: {},
      csiDrivers: [],
      clusterIds: ['rook-ceph'],
      maxAddressesPerRange: 256,
      witness: { user: 'kube-fencer-witness', keyring: '/etc/ceph/w.keyring' },
    });
  });

  it('refuses it beside a mgr URL, without the read-only user, and a class that is no name', () => {
    const nf = { [CEPH_ENV.networkFenceClass]: 'ceph-rbd' };
    expect(() =>
      cephNetworkFenceSettingsFromEnv({ ...witness, ...nf, [CEPH_ENV.mgrUrl]: 'https://10.0.0.5:8003/' }),
    ).toThrow(/not both/);
    expect(() => cephNetworkFenceSettingsFromEnv(nf)).toThrow(/needs FENCER_CEPH_WITNESS_ID/);
    expect(() =>
      cephNetworkFenceSettingsFromEnv({ ...witness, [CEPH_ENV.networkFenceClass]: 'Not A Name' }),
    ).toThrow(CephInputError);
  });
});
