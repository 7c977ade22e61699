import type { V1DeleteOptions } from '@kubernetes/client-node';
import type { MutationOptions } from '../../ports/cluster.js';
import type { ApiClient } from './api/api-client.js';
import { apiPaths } from './api/paths.js';
import { isConflict, isNotFound, toKubernetesApiError } from './errors.js';

/**
 * The API server's own dry run (validated and admitted, never persisted) for a DELETE. It must go in
 * the DeleteOptions body: once a DELETE has a body, the API server ignores the query parameters,
 * so `?dryRun=All` beside a precondition body would delete for real.
 */
export const deleteOptions = (options: MutationOptions, body: V1DeleteOptions): V1DeleteOptions =>
  options.dryRun ? { ...body, dryRun: ['All'] } : body;

/**
 * Runs a delete with a UID precondition. 404 is 'gone'; so is 409, which here means the
 * precondition failed: the object of that name is a replacement, and the one we meant is gone.
 */
async function deleteOrGone(
  operation: string,
  object: string,
  remove: () => Promise<unknown>,
): Promise<'deleted' | 'gone'> {
  try {
    await remove();
    return 'deleted';
  } catch (error) {
    if (isNotFound(error) || isConflict(error)) return 'gone';
    throw toKubernetesApiError(operation, object, error);
  }
}

/** Deletes a pod at once (grace period 0), only if it is still the pod with `uid`. */
export const forceDeletePod = (
  api: ApiClient,
  pod: { readonly namespace: string; readonly name: string; readonly uid: string },
  options: MutationOptions,
): Promise<'deleted' | 'gone'> =>
  deleteOrGone('deleteNamespacedPod', `pod/${pod.namespace}/${pod.name}`, () =>
    api.call({
      method: 'DELETE',
      path: apiPaths.pod(pod.namespace, pod.name),
      body: deleteOptions(options, { gracePeriodSeconds: 0, preconditions: { uid: pod.uid } }),
    }),
  );

/** Deletes a VolumeAttachment, only if it is still the one with `uid` (sweeps only, SAFETY.md rule 5). */
export const deleteVolumeAttachment = (
  api: ApiClient,
  va: { readonly name: string; readonly uid: string },
  options: MutationOptions,
): Promise<'deleted' | 'gone'> =>
  deleteOrGone('deleteVolumeAttachment', `volumeattachment/${va.name}`, () =>
    api.call({
      method: 'DELETE',
      path: apiPaths.volumeAttachment(va.name),
      body: deleteOptions(options, { preconditions: { uid: va.uid } }),
    }),
  );
