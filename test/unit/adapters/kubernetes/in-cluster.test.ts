/** In-cluster access: the pod's Service variables, CA and ServiceAccount token, read again as the kubelet rotates it. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { inCluster, inClusterEndpoint } from '../../../../lib/adapters/kubernetes/access/in-cluster.js';

const CA = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';

function serviceAccountDir(token: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'sa-'));
  writeFileSync(join(dir, 'ca.crt'), CA);
  writeFileSync(join(dir, 'token'), `${token}\n`);
  return dir;
}

describe('in-cluster access', () => {
  afterEach(() => vi.useRealTimers());

  it('knows a pod by its Service variables', () => {
    expect(inCluster({ KUBERNETES_SERVICE_HOST: '10.0.0.1', KUBERNETES_SERVICE_PORT: '443' })).toBe(true);
    expect(inCluster({ KUBERNETES_SERVICE_HOST: '10.0.0.1' })).toBe(false);
    expect(inCluster({})).toBe(false);
  });

  it('refuses outside a pod, and without a mounted token, saying what to do', () => {
    expect(() => inClusterEndpoint({})).toThrow(/give --kubeconfig/);
    const env = { KUBERNETES_SERVICE_HOST: '10.0.0.1', KUBERNETES_SERVICE_PORT: '443' };
    expect(() => inClusterEndpoint(env, join(tmpdir(), 'no-such-dir'))).toThrow(
      /ServiceAccount token mounted/,
    );
  });

  it('sends the token as a bearer, to the Service address (IPv6 bracketed)', async () => {
    const dir = serviceAccountDir('first');
    const endpoint = inClusterEndpoint(
      { KUBERNETES_SERVICE_HOST: 'fd00::1', KUBERNETES_SERVICE_PORT: '443' },
      dir,
    );
    expect(endpoint.server).toBe('https://[fd00::1]:443');
    expect((await endpoint.auth()).headers.Authorization).toBe('Bearer first');
  });

  it('reads the rotated token after a minute, not before', async () => {
    vi.useFakeTimers({ now: new Date('2026-12-05T00:00:00Z') });
    const dir = serviceAccountDir('first');
    const endpoint = inClusterEndpoint(
      { KUBERNETES_SERVICE_HOST: '10.0.0.1', KUBERNETES_SERVICE_PORT: '443' },
      dir,
    );
    writeFileSync(join(dir, 'token'), 'second\n');
    vi.setSystemTime(new Date('2026-12-05T00:00:30Z'));
    expect((await endpoint.auth()).headers.Authorization).toBe('Bearer first');
    vi.setSystemTime(new Date('2026-12-05T00:01:01Z'));
    expect((await endpoint.auth()).headers.Authorization).toBe('Bearer second');
  });
});
