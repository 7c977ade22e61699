/**
 * The access errors the CLI and the handlers branch on: each carries a literal name (bundles may hold two
 * copies of a class, so `instanceof` is not enough) and the facts the message is built from.
 */
import { describe, expect, it } from 'vitest';
import {
  CredentialsError,
  describePermission,
  isAccessError,
  KubeconfigError,
  PermissionDeniedError,
  UnreachableError,
} from '../../../lib/domain/access-errors.js';

describe('access errors', () => {
  it('carry their literal name and their facts', () => {
    const cause = new Error('ENOENT');
    expect(new KubeconfigError('unknown-context', 'no context "prod"', { cause })).toMatchObject({
      name: 'KubeconfigError',
      problem: 'unknown-context',
      message: 'no context "prod"',
      cause,
    });
    expect(new CredentialsError('kubernetes', 'token expired')).toMatchObject({
      name: 'CredentialsError',
      service: 'kubernetes',
    });
    expect(new UnreachableError('kubernetes', 'https://10.0.0.1:6443', 'connect ECONNREFUSED')).toMatchObject(
      {
        name: 'UnreachableError',
        service: 'kubernetes',
        endpoint: 'https://10.0.0.1:6443',
      },
    );
    const missing = [{ verb: 'patch', group: '', resource: 'nodes' }];
    expect(new PermissionDeniedError('kubernetes', missing, 'cannot patch nodes')).toMatchObject({
      name: 'PermissionDeniedError',
      service: 'kubernetes',
      missing,
    });
  });

  it('are told apart by name, from other errors and from non-errors', () => {
    for (const error of [
      new KubeconfigError('malformed', 'x'),
      new CredentialsError('kubernetes', 'x'),
      new UnreachableError('kubernetes', 'https://a', 'x'),
      new PermissionDeniedError('kubernetes', [], 'x'),
      Object.assign(new Error('a copy from another bundle'), { name: 'CredentialsError' }),
    ]) {
      expect(isAccessError(error)).toBe(true);
    }
    expect(isAccessError(new Error('x'))).toBe(false);
    expect(isAccessError(Object.assign(new Error('x'), { name: 'ValidationError' }))).toBe(false);
    expect(isAccessError({ name: 'CredentialsError', message: 'not an Error' })).toBe(false);
    expect(isAccessError(undefined)).toBe(false);
  });
});

describe('describePermission', () => {
  it('names a permission as `kubectl auth can-i` would', () => {
    expect(describePermission({ verb: 'patch', group: '', resource: 'nodes' })).toBe('patch nodes');
    expect(
      describePermission({
        verb: 'update',
        group: 'coordination.k8s.io',
        resource: 'leases',
        namespace: 'kube-system',
        name: 'kube-fencer',
      }),
    ).toBe('update leases.coordination.k8s.io/kube-fencer -n kube-system');
  });
});
