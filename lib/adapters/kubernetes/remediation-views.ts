/**
 * KubeFencerRemediation objects (deploy/crds/) as JSON: where they live, what the adapter reads of them,
 * and the Event it writes about one. Pure, so it can be checked without a cluster.
 */
import type { CoreV1Event } from '@kubernetes/client-node';
import type { RemediationEvent, RemediationObject } from '../../ports/remediations.js';
import { type EventReporter, eventBody } from './events.js';

export const REMEDIATION_GROUP = 'remediation.kube-fencer.io';
export const REMEDIATION_VERSION = 'v1alpha1';
export const REMEDIATION_KIND = 'KubeFencerRemediation';
const API_VERSION = `${REMEDIATION_GROUP}/${REMEDIATION_VERSION}`;
const BASE = `/apis/${API_VERSION}`;
const PLURAL = 'kubefencerremediations';
const seg = encodeURIComponent;

export const remediationPaths = {
  /** Every remediation, in every namespace. */
  all: `${BASE}/${PLURAL}`,
  one: (namespace: string, name: string): string =>
    `${BASE}/namespaces/${seg(namespace)}/${PLURAL}/${seg(name)}`,
  status: (namespace: string, name: string): string =>
    `${BASE}/namespaces/${seg(namespace)}/${PLURAL}/${seg(name)}/status`,
} as const;

/** What the adapter reads of a remediation object. */
export interface RawRemediation {
  metadata?: {
    name?: string;
    namespace?: string;
    uid?: string;
    resourceVersion?: string;
    generation?: number;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    finalizers?: string[];
    ownerReferences?: { kind?: string; name?: string; uid?: string }[];
    deletionTimestamp?: string;
  };
  spec?: unknown;
  status?: unknown;
}

/** The port's view of a remediation object. */
export const toRemediationObject = (raw: RawRemediation): RemediationObject => ({
  namespace: raw.metadata?.namespace ?? '',
  name: raw.metadata?.name ?? '',
  uid: raw.metadata?.uid ?? '',
  resourceVersion: raw.metadata?.resourceVersion ?? '',
  generation: raw.metadata?.generation ?? 0,
  annotations: raw.metadata?.annotations ?? {},
  labels: raw.metadata?.labels ?? {},
  finalizers: raw.metadata?.finalizers ?? [],
  ownerReferences: (raw.metadata?.ownerReferences ?? []).map((o) => ({
    kind: o.kind ?? '',
    name: o.name ?? '',
    uid: o.uid ?? '',
  })),
  deleting: raw.metadata?.deletionTimestamp !== undefined && raw.metadata.deletionTimestamp !== null,
  spec: raw.spec,
  status: raw.status,
});

/** A merge patch that sets the finalizers, only on the version read (a conflict if it moved). */
export const finalizersPatch = (object: RemediationObject, finalizers: readonly string[]) => ({
  metadata: { resourceVersion: object.resourceVersion, finalizers: [...finalizers] },
});

/** A core/v1 Event about the remediation, in its namespace, stamped `now`. */
export const remediationEventBody = (
  object: RemediationObject,
  event: RemediationEvent,
  reporter: EventReporter,
  now: Date,
): CoreV1Event =>
  eventBody(
    {
      apiVersion: API_VERSION,
      kind: REMEDIATION_KIND,
      name: object.name,
      namespace: object.namespace,
      uid: object.uid,
    },
    object.namespace,
    event,
    reporter,
    now,
  );
