/**
 * {@link RemediationStore} on the Kubernetes API: the KubeFencerRemediation objects medik8s NHC creates
 * (deploy/crds/), read as JSON across namespaces. Finalizers are written by read-modify-write on
 * resourceVersion (NHC writes annotations on the same objects: a race is retried from a fresh read, and
 * anyone else's finalizer is kept); the status is replaced whole through the `status` subresource, which
 * only the leading controller writes.
 */
import { hostname } from 'node:os';
import type {
  RemediationEvent,
  RemediationObject,
  RemediationStatus,
  RemediationStore,
} from '../../ports/remediations.js';
import { ApiClient } from './api/api-client.js';
import type { ApiEndpoint } from './api/endpoint.js';
import { apiPaths, MERGE_PATCH } from './api/paths.js';
import { isNotFound, serverMessage, statusOf, toKubernetesApiError } from './errors.js';
import { type KubeClusterLogger, silentLogger } from './logger.js';
import { listMapped, type RawPage } from './raw-list.js';
import {
  finalizersPatch,
  type RawRemediation,
  remediationEventBody,
  remediationPaths,
  toRemediationObject,
} from './remediation-views.js';
import { waitForCollectionChange } from './remediation-watch.js';
import { DEFAULT_CONFLICT_RETRY, retryOnConflict } from './retry.js';

const JSON_PATCH = 'application/json-patch+json';

export interface KubeRemediationsProps {
  /** Field manager of every write, and the Events' reporting component. @default 'kube-fencer' */
  readonly fieldManager?: string;
  /** The Events' `reportingInstance`. @default os.hostname() */
  readonly reportingInstance?: string;
  /** @default 500 */
  readonly pageSize?: number;
  /** @default a logger that drops everything */
  readonly logger?: KubeClusterLogger;
  /** Stamps Events. @default () => new Date() */
  readonly now?: () => Date;
}

const describe = (o: RemediationObject): string => `kubefencerremediation/${o.namespace}/${o.name}`;

export class KubeRemediations implements RemediationStore {
  readonly #api: ApiClient;
  readonly #fieldManager: string;
  readonly #reportingInstance: string;
  readonly #pageSize: number;
  readonly #logger: KubeClusterLogger;
  readonly #now: () => Date;

  constructor(endpoint: ApiEndpoint, props: KubeRemediationsProps = {}) {
    this.#api = new ApiClient(endpoint);
    this.#fieldManager = props.fieldManager ?? 'kube-fencer';
    this.#reportingInstance = props.reportingInstance ?? hostname();
    this.#pageSize = props.pageSize ?? 500;
    this.#logger = props.logger ?? silentLogger;
    this.#now = props.now ?? (() => new Date());
  }

  list(): Promise<readonly RemediationObject[]> {
    return listMapped(
      'listKubeFencerRemediations',
      'kubefencerremediations',
      (token) =>
        this.#api.call<RawPage>({
          method: 'GET',
          path: remediationPaths.all,
          query: { limit: String(this.#pageSize), continue: token },
        }),
      (item: RawRemediation) => toRemediationObject(item),
    );
  }

  async #get(object: RemediationObject): Promise<RemediationObject | null> {
    try {
      const path = remediationPaths.one(object.namespace, object.name);
      return toRemediationObject(await this.#api.call<RawRemediation>({ method: 'GET', path }));
    } catch (error) {
      if (isNotFound(error)) return null;
      throw error;
    }
  }

  /**
   * Sets the finalizers to `change(current)` by read-modify-write; null when the object is gone. The
   * object as given is tried first (its resourceVersion makes a stale one a conflict); that it needs no
   * change is believed only of a fresh read.
   */
  async #editFinalizers(
    operation: string,
    object: RemediationObject,
    change: (current: readonly string[]) => readonly string[] | null,
  ): Promise<RemediationObject | null> {
    let first = true;
    return retryOnConflict(
      operation,
      describe(object),
      async () => {
        const given = first && change(object.finalizers) !== null;
        first = false;
        const current = given ? object : await this.#get(object);
        if (current === null || current.uid !== object.uid) return null;
        const finalizers = change(current.finalizers);
        if (finalizers === null) return current;
        try {
          const raw = await this.#api.call<RawRemediation>({
            method: 'PATCH',
            path: remediationPaths.one(object.namespace, object.name),
            query: { fieldManager: this.#fieldManager },
            body: finalizersPatch(current, finalizers),
            contentType: MERGE_PATCH,
          });
          return toRemediationObject(raw);
        } catch (error) {
          if (isNotFound(error)) return null;
          throw error;
        }
      },
      DEFAULT_CONFLICT_RETRY,
    );
  }

  async addFinalizer(object: RemediationObject, finalizer: string): Promise<RemediationObject> {
    const written = await this.#editFinalizers('addFinalizer', object, (current) =>
      current.includes(finalizer) ? null : [...current, finalizer],
    );
    if (written === null) {
      throw toKubernetesApiError('addFinalizer', describe(object), new Error('the object is gone'));
    }
    return written;
  }

  async removeFinalizer(object: RemediationObject, finalizer: string): Promise<void> {
    await this.#editFinalizers('removeFinalizer', object, (current) =>
      current.includes(finalizer) ? current.filter((f) => f !== finalizer) : null,
    );
  }

  async writeStatus(object: RemediationObject, status: RemediationStatus): Promise<void> {
    try {
      await this.#api.call({
        method: 'PATCH',
        path: remediationPaths.status(object.namespace, object.name),
        query: { fieldManager: this.#fieldManager },
        body: [{ op: 'add', path: '/status', value: status }],
        contentType: JSON_PATCH,
      });
    } catch (error) {
      if (isNotFound(error)) return;
      throw toKubernetesApiError('writeStatus', describe(object), error);
    }
  }

  async recordEvent(object: RemediationObject, event: RemediationEvent): Promise<void> {
    try {
      const reporter = { component: this.#fieldManager, instance: this.#reportingInstance };
      const body = remediationEventBody(object, event, reporter, this.#now());
      await this.#api.call({ method: 'POST', path: apiPaths.inNamespace(object.namespace, 'events'), body });
    } catch (error) {
      this.#logger.warn('could not record a Kubernetes Event on the remediation', {
        remediation: describe(object),
        reason: event.reason,
        eventMessage: event.message,
        statusCode: statusOf(error),
        error: serverMessage(error),
      });
    }
  }

  waitForChange(timeoutMs: number, signal?: AbortSignal): Promise<'changed' | 'timeout'> {
    return waitForCollectionChange(this.#api, remediationPaths.all, timeoutMs, signal);
  }
}
