import { describe, expect, it } from 'vitest';
import { ApiStatusError } from '../../../../lib/adapters/kubernetes/api/api-client.js';
import { statusOf, toKubernetesApiError } from '../../../../lib/adapters/kubernetes/errors.js';
import { retryOnConflict } from '../../../../lib/adapters/kubernetes/retry.js';
import { ConflictError, KubernetesApiError, ValidationError } from '../../../../lib/domain/errors.js';

const apiException = (code: number, message: string): ApiStatusError =>
  new ApiStatusError(code, JSON.stringify({ kind: 'Status', code, message }));

describe('toKubernetesApiError', () => {
  it("names the operation, the object, the status and the server's sentence", () => {
    // Prepare
    const cause = apiException(403, 'nodes "node-b" is forbidden: User "x" cannot patch resource "nodes"');

    // Act
    const error = toKubernetesApiError('patchNode', 'node/node-b', cause);

    // Assess
    expect(error).toBeInstanceOf(KubernetesApiError);
    expect(error.name).toBe('KubernetesApiError');
    expect(error.statusCode).toBe(403);
    expect(error.cause).toBe(cause);
    expect(error.message).toBe(
      'Kubernetes patchNode node/node-b failed (HTTP 403): nodes "node-b" is forbidden: User "x" cannot patch resource "nodes"',
    );
  });

  it('keeps a network failure without a status', () => {
    // Act
    const error = toKubernetesApiError(
      'readNode',
      'node/node-b',
      new Error('connect ECONNREFUSED 127.0.0.1:6443'),
    );

    // Assess
    expect(error.statusCode).toBeUndefined();
    expect(error.message).toBe('Kubernetes readNode node/node-b failed: connect ECONNREFUSED 127.0.0.1:6443');
  });
});

describe('statusOf', () => {
  it('reads the status of API answers and of errors shaped like them', () => {
    expect(statusOf(apiException(404, 'not found'))).toBe(404);
    expect(statusOf(Object.assign(new Error('Gone'), { statusCode: 410 }))).toBe(410);
    expect(statusOf(new Error('boom'))).toBeUndefined();
  });

  it("does not mistake a watch timeout's DOMException code for an HTTP status", () => {
    // Prepare: what an aborted fetch or stream rejects with.
    const timeout = new DOMException('The operation was aborted due to timeout', 'TimeoutError');

    // Act
    const status = statusOf(timeout);

    // Assess
    expect(timeout.code).toBe(23);
    expect(status).toBeUndefined();
  });
});

describe('retryOnConflict', () => {
  const quick = { attempts: 3, baseDelayMs: 1 };

  it('tries again after a conflict and returns the first success', async () => {
    // Prepare
    let calls = 0;
    const attempt = async () => {
      calls += 1;
      if (calls < 3) throw apiException(409, 'the object has been modified');
      return 'done';
    };

    // Act
    const result = await retryOnConflict('patchNode', 'node/node-b', attempt, quick);

    // Assess
    expect(result).toBe('done');
    expect(calls).toBe(3);
  });

  it('gives up with a ConflictError after the bounded attempts', async () => {
    // Prepare
    let calls = 0;
    const attempt = async () => {
      calls += 1;
      throw apiException(409, 'the object has been modified');
    };

    // Act
    const run = retryOnConflict('patchNode', 'node/node-b', attempt, quick);

    // Assess
    await expect(run).rejects.toBeInstanceOf(ConflictError);
    expect(calls).toBe(3);
  });

  it('does not retry any other failure', async () => {
    // Prepare
    let calls = 0;
    const attempt = async () => {
      calls += 1;
      throw apiException(500, 'etcdserver: request timed out');
    };

    // Act
    const run = retryOnConflict('patchNode', 'node/node-b', attempt, quick);

    // Assess
    await expect(run).rejects.toMatchObject({ name: 'KubernetesApiError', statusCode: 500 });
    expect(calls).toBe(1);
  });

  it("passes the fencer's own errors through unwrapped", async () => {
    // Prepare
    const invalid = new ValidationError('annotation kube-fencer.io/claims is not JSON');

    // Act
    const run = retryOnConflict(
      'claimFencing',
      'lease/kube-system/kube-fencer',
      () => Promise.reject(invalid),
      quick,
    );

    // Assess
    await expect(run).rejects.toBe(invalid);
  });
});
