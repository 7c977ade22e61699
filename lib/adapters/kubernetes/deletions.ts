import type { CoreV1Api, StorageV1Api, V1DeleteOptions } from '@kubernetes/client-node';
import type { MutationOptions } from '../../ports/cluster.js';
import { isConflict, isNotFound, toKubernetesApiError } from './errors.js';

/**
 * The API server's own dry run (validated and admitted, never persisted) for a DELETE. It must go in
 * the DeleteOptions body: once a DELETE has a body, the API server ignores the query parameters,
 * so `?dryRun=All` beside a precondition body would delete for real.
 */
export const deleteOptions = (
  options: MutationOptions,
  body: V1DeleteOptions,
): { readonly dryRun?: string; readonly body: V1DeleteOptions } =>
  options.dryRun ? { dryRun: 'All', body: { ...body, dryRun: ['All'] } } : { body };

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
  core: CoreV1Api,
  pod: { readonly namespace: string; readonly name: string; readonly uid: string },
  options: MutationOptions,
): Promise<'deleted' | 'gone'> =>
  deleteOrGone('deleteNamespacedPod', `pod/${pod.namespace}/${pod.name}`, () =>
    core.deleteNamespacedPod({
      name: pod.name,
      namespace: pod.namespace,
      ...deleteOptions(options, { gracePeriodSeconds: 0, preconditions: { uid: pod.uid } }),
    }),
  );

/** Deletes a VolumeAttachment, only if it is still the one with `uid` (sweeps only, safety.md rule 5). */
export const deleteVolumeAttachment = (
  storage: StorageV1Api,
  va: { readonly name: string; readonly uid: string },
  options: MutationOptions,
): Promise<'deleted' | 'gone'> =>
  deleteOrGone('deleteVolumeAttachment', `volumeattachment/${va.name}`, () =>
    storage.deleteVolumeAttachment({
      name: va.name,
      ...deleteOptions(options, { preconditions: { uid: va.uid } }),
    }),
  );
