import type { MutationOptions, NodeView, NodeWriteOptions, Taint } from '../../ports/cluster.js';
import type { ApiClient } from './api/api-client.js';
import { apiPaths, MERGE_PATCH } from './api/paths.js';
import { ConflictError, isConflict, isNotFound } from './errors.js';
import { type ConflictRetryPolicy, retryOnConflict } from './retry.js';
import { annotationChanges, type NodePatch, nodePatch, withoutTaint, withTaint } from './taints.js';
import { toNodeView } from './views.js';

/** What one read-modify-write decided from the node it read: a result, and the patch if any. */
interface Plan<R> {
  readonly result: R;
  readonly patch?: NodePatch;
}

/** Settings of {@link NodeWriter}. */
export interface NodeWriterOptions {
  readonly fieldManager: string;
  readonly retry: ConflictRetryPolicy;
  /** Stamps `timeAdded` on new NoExecute taints. */
  readonly now: () => Date;
}

/**
 * Changes a Node's taints and annotations by read-modify-write: GET, compute, merge patch carrying
 * the `resourceVersion` that was read, and on 409 start over from a fresh GET (SAFETY.md rule 6).
 * A plan that changes nothing writes nothing. Dry run sends the same patch with `dryRun=All`.
 */
export class NodeWriter {
  readonly #api: ApiClient;
  readonly #options: NodeWriterOptions;

  constructor(api: ApiClient, options: NodeWriterOptions) {
    this.#api = api;
    this.#options = options;
  }

  /** Adds `taint` and sets `annotations` in one update, unless a taint with its key and effect exists. */
  addTaint(
    node: string,
    taint: Taint,
    annotations: Readonly<Record<string, string>>,
    options: NodeWriteOptions,
  ): Promise<'added' | 'already-present'> {
    return this.#readModifyWrite('addTaint', node, options, (view) => {
      const taints = withTaint(view.taints, taint, this.#options.now());
      if (!taints) return { result: 'already-present' };
      const changes = annotationChanges(view.annotations, annotations);
      return { result: 'added', patch: nodePatch(view, { taints, annotations: changes }) };
    });
  }

  /**
   * Removes exactly `taint` and deletes `removeAnnotations` in one update. Leftover annotations are
   * cleaned up even when the taint is already gone, so a half-undone fence does not linger; a node
   * that no longer exists has nothing to remove.
   */
  removeTaint(
    node: string,
    taint: Taint,
    removeAnnotations: readonly string[],
    options: NodeWriteOptions,
  ): Promise<'removed' | 'absent'> {
    const wanted = Object.fromEntries(removeAnnotations.map((name) => [name, null]));
    return this.#readModifyWrite(
      'removeTaint',
      node,
      options,
      (view) => {
        const taints = withoutTaint(view.taints, taint);
        const changes = annotationChanges(view.annotations, wanted);
        if (!taints && Object.keys(changes).length === 0) return { result: 'absent' };
        return {
          result: taints ? 'removed' : 'absent',
          patch: nodePatch(view, { ...(taints ? { taints } : {}), annotations: changes }),
        };
      },
      () => 'absent',
    );
  }

  /** Sets (string) or deletes (null) annotations; writes only when one of them differs. */
  async annotateNode(
    node: string,
    annotations: Readonly<Record<string, string | null>>,
    options: NodeWriteOptions,
  ): Promise<void> {
    await this.#readModifyWrite('annotateNode', node, options, (view) => {
      const changes = annotationChanges(view.annotations, annotations);
      if (Object.keys(changes).length === 0) return { result: undefined };
      return { result: undefined, patch: nodePatch(view, { annotations: changes }) };
    });
  }

  /**
   * With `expectedResourceVersion` the write is conditional on the node the caller observed: a
   * node changed since is a ConflictError at once, not a retry, so the caller re-checks it first.
   */
  #readModifyWrite<R>(
    operation: string,
    node: string,
    options: NodeWriteOptions,
    plan: (view: NodeView) => Plan<R>,
    onMissing?: () => R,
  ): Promise<R> {
    const expected = options.expectedResourceVersion;
    const retry = expected === undefined ? this.#options.retry : { ...this.#options.retry, attempts: 1 };
    return retryOnConflict(
      operation,
      `node/${node}`,
      async () => {
        let view: NodeView;
        try {
          view = toNodeView(await this.#api.call({ method: 'GET', path: apiPaths.node(node) }));
        } catch (error) {
          if (onMissing && isNotFound(error)) return onMissing();
          throw error;
        }
        if (expected !== undefined && view.resourceVersion !== expected) {
          throw nodeChanged(operation, node, expected);
        }
        const { result, patch } = plan(view);
        if (patch) {
          await this.#patch(node, patch, options).catch((error: unknown) => {
            throw expected !== undefined && isConflict(error)
              ? nodeChanged(operation, node, expected, error)
              : error;
          });
        }
        return result;
      },
      retry,
    );
  }

  async #patch(node: string, body: NodePatch, options: MutationOptions): Promise<void> {
    await this.#api.call({
      method: 'PATCH',
      path: apiPaths.node(node),
      query: { fieldManager: this.#options.fieldManager, dryRun: options.dryRun ? 'All' : undefined },
      body,
      contentType: MERGE_PATCH,
    });
  }
}

const nodeChanged = (operation: string, node: string, expected: string, cause?: unknown): ConflictError =>
  new ConflictError(
    `Kubernetes ${operation} node/${node}: the node changed since it was observed (resourceVersion ${expected}); observe it again`,
    { cause },
  );
