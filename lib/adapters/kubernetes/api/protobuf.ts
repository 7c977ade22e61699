/**
 * Lists in Kubernetes' protobuf encoding, for the largest reads (every VolumeAttachment and PV of a
 * cluster). The API server encodes protobuf several times faster than JSON and sends fewer bytes; the
 * schema below declares only the fields the adapter's views read, so every other field (managedFields
 * above all) is skipped undecoded. Each item is shaped as the JSON API would have answered it, times
 * as RFC 3339 seconds, so the JSON views map both encodings and a test can compare them item by item.
 *
 * Field numbers are Kubernetes' own (k8s.io/api and k8s.io/apimachinery `generated.proto`), stable
 * across releases: protobuf fields are never renumbered.
 */
import protobuf from 'protobufjs/light.js';

/** What to ask for in `Accept`. */
export const PROTOBUF_CONTENT_TYPE = 'application/vnd.kubernetes.protobuf';

/** Every protobuf answer starts with these four bytes, then a `runtime.Unknown` holding the object. */
const MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

const str = (id: number) => ({ type: 'string', id });
const msg = (type: string, id: number) => ({ type, id });
const many = (type: string, id: number) => ({ rule: 'repeated', type, id });
const map = (id: number) => ({ keyType: 'string', type: 'string', id });

const root = protobuf.Root.fromJSON({
  nested: {
    Unknown: { fields: { raw: { type: 'bytes', id: 2 }, contentEncoding: str(3), contentType: str(4) } },
    Time: { fields: { seconds: { type: 'int64', id: 1 }, nanos: { type: 'int32', id: 2 } } },
    ListMeta: { fields: { resourceVersion: str(2), continue: str(3) } },
    ObjectMeta: {
      fields: {
        name: str(1),
        namespace: str(3),
        uid: str(5),
        resourceVersion: str(6),
        creationTimestamp: msg('Time', 8),
        deletionTimestamp: msg('Time', 9),
        labels: map(11),
        annotations: map(12),
        finalizers: many('string', 14),
      },
    },
    StatusCause: { fields: { reason: str(1), message: str(2), field: str(3) } },
    StatusDetails: {
      fields: {
        name: str(1),
        group: str(2),
        kind: str(3),
        causes: many('StatusCause', 4),
        retryAfterSeconds: { type: 'int32', id: 5 },
        uid: str(6),
      },
    },
    Status: {
      fields: {
        status: str(2),
        message: str(3),
        reason: str(4),
        details: msg('StatusDetails', 5),
        code: { type: 'int32', id: 6 },
      },
    },
    VolumeError: { fields: { time: msg('Time', 1), message: str(2) } },
    VolumeAttachment: {
      fields: {
        metadata: msg('ObjectMeta', 1),
        spec: msg('VolumeAttachmentSpec', 2),
        status: msg('VolumeAttachmentStatus', 3),
      },
    },
    VolumeAttachmentSpec: {
      fields: { attacher: str(1), source: msg('VolumeAttachmentSource', 2), nodeName: str(3) },
    },
    VolumeAttachmentSource: { fields: { persistentVolumeName: str(1) } },
    VolumeAttachmentStatus: {
      fields: {
        attached: { type: 'bool', id: 1 },
        attachError: msg('VolumeError', 3),
        detachError: msg('VolumeError', 4),
      },
    },
    VolumeAttachmentList: { fields: { metadata: msg('ListMeta', 1), items: many('VolumeAttachment', 2) } },
    PersistentVolume: {
      fields: {
        metadata: msg('ObjectMeta', 1),
        spec: msg('PersistentVolumeSpec', 2),
        status: msg('PersistentVolumeStatus', 3),
      },
    },
    PersistentVolumeSpec: {
      fields: {
        persistentVolumeSource: msg('PersistentVolumeSource', 2),
        accessModes: many('string', 3),
        claimRef: msg('ObjectReference', 4),
        storageClassName: str(6),
        nodeAffinity: msg('VolumeNodeAffinity', 9),
      },
    },
    // Only the sources a view tells apart: the rest decode as an empty source.
    PersistentVolumeSource: {
      fields: {
        awsElasticBlockStore: msg('AWSElasticBlockStoreVolumeSource', 2),
        hostPath: msg('Present', 3),
        local: msg('Present', 20),
        csi: msg('CSIPersistentVolumeSource', 22),
      },
    },
    Present: { fields: {} },
    AWSElasticBlockStoreVolumeSource: { fields: { volumeID: str(1) } },
    CSIPersistentVolumeSource: { fields: { driver: str(1), volumeHandle: str(2) } },
    ObjectReference: { fields: { namespace: str(2), name: str(3), uid: str(4) } },
    VolumeNodeAffinity: { fields: { required: msg('NodeSelector', 1) } },
    NodeSelector: { fields: { nodeSelectorTerms: many('NodeSelectorTerm', 1) } },
    NodeSelectorTerm: { fields: { matchExpressions: many('NodeSelectorRequirement', 1) } },
    NodeSelectorRequirement: { fields: { key: str(1), operator: str(2), values: many('string', 3) } },
    PersistentVolumeStatus: { fields: { phase: str(1) } },
    PersistentVolumeList: { fields: { metadata: msg('ListMeta', 1), items: many('PersistentVolume', 2) } },
  },
});

/** The list kinds read in protobuf. */
export type ProtobufListKind = 'VolumeAttachmentList' | 'PersistentVolumeList';

/** A decoded page: its continue token, and its items shaped as the JSON API answers them. */
export interface ProtobufPage {
  readonly metadata: { readonly continue?: string; readonly resourceVersion?: string };
  /** Decoded as iterated, once. */
  readonly items: Iterable<unknown>;
}

const TO_OBJECT: protobuf.IConversionOptions = { longs: Number, defaults: false };

type Plain = Record<string, unknown>;
interface PlainTime {
  readonly seconds?: number;
}

/**
 * `metav1.Time` as its JSON form: RFC 3339, whole seconds, UTC. A zero time, which JSON writes as
 * `null`, comes as an empty message (a field that is not a pointer is always written): it is no time
 * at all, as apimachinery's own `Time.Unmarshal` reads it, never 1970.
 */
const rfc3339 = (time: unknown): string | undefined => {
  if (!time || typeof time !== 'object') return undefined;
  const seconds = (time as PlainTime).seconds;
  if (seconds === undefined) return undefined;
  return new Date(seconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
};

/** Replaces the Time at `object[key]`, if any, with its JSON form. */
const fixTime = (object: unknown, key: string): void => {
  if (!object || typeof object !== 'object') return;
  const holder = object as Plain;
  if (key in holder) holder[key] = rfc3339(holder[key]);
};

/** The object a protobuf answer holds, after its `k8s\0` prefix and `runtime.Unknown` envelope. */
function unwrap(body: Uint8Array): Uint8Array {
  if (body.length < MAGIC.length || !MAGIC.equals(body.subarray(0, MAGIC.length))) {
    throw new Error('not a Kubernetes protobuf answer (no k8s\\0 prefix)');
  }
  const unknown = root.lookupType('Unknown').decode(body.subarray(MAGIC.length)) as unknown as {
    raw?: Uint8Array;
    contentEncoding?: string;
  };
  if (unknown.contentEncoding) throw new Error(`unsupported content encoding ${unknown.contentEncoding}`);
  return unknown.raw ?? new Uint8Array();
}

const shapeMeta = (item: Plain): void => {
  fixTime(item.metadata, 'creationTimestamp');
  fixTime(item.metadata, 'deletionTimestamp');
};

const shapers: Record<ProtobufListKind, (item: Plain) => void> = {
  VolumeAttachmentList: (va) => {
    shapeMeta(va);
    const status = va.status as Plain | undefined;
    fixTime(status?.attachError, 'time');
    fixTime(status?.detachError, 'time');
  },
  // JSON inlines the volume source into the spec.
  PersistentVolumeList: (pv) => {
    shapeMeta(pv);
    const spec = pv.spec as Plain | undefined;
    if (spec?.persistentVolumeSource) {
      const { persistentVolumeSource, ...rest } = spec;
      pv.spec = { ...rest, ...(persistentVolumeSource as Plain) };
    }
  },
};

/**
 * Decodes one list page of `kind` from a protobuf answer's body. The page's own fields are read at
 * once; its items are decoded one at a time as they are iterated, so only one decoded item is alive
 * beside the caller's views, and the page's bytes are all that a page costs.
 */
export function decodeListPage(kind: ProtobufListKind, body: Uint8Array): ProtobufPage {
  const raw = unwrap(body);
  const reader = protobuf.Reader.create(raw);
  let metadata: ProtobufPage['metadata'] = {};
  const ranges: [number, number][] = [];
  while (reader.pos < reader.len) {
    const tag = reader.uint32();
    const field = tag >>> 3;
    const wireType = tag & 7;
    if (wireType === LENGTH_DELIMITED && field === LIST_METADATA) {
      const listMeta = root.lookupType('ListMeta');
      metadata = listMeta.toObject(listMeta.decode(reader, reader.uint32()), TO_OBJECT);
    } else if (wireType === LENGTH_DELIMITED && field === LIST_ITEMS) {
      const length = reader.uint32();
      ranges.push([reader.pos, reader.pos + length]);
      reader.skip(length);
    } else {
      reader.skipType(wireType);
    }
  }
  return { metadata, items: itemsOf(kind, raw, ranges) };
}

/** A list's `metadata` and `items` fields (1 and 2 in every `...List` message), length-delimited. */
const LIST_METADATA = 1;
const LIST_ITEMS = 2;
const LENGTH_DELIMITED = 2;

function* itemsOf(kind: ProtobufListKind, raw: Uint8Array, ranges: readonly [number, number][]) {
  const type = root.lookupType(kind.replace(/List$/, ''));
  for (const [start, end] of ranges) {
    const item = type.toObject(type.decode(raw.subarray(start, end)), TO_OBJECT);
    shapers[kind](item);
    yield item;
  }
}

/** A `Status` from a protobuf error answer, as the JSON the API would have sent. */
export function decodeStatus(body: Uint8Array): string {
  const type = root.lookupType('Status');
  return JSON.stringify({
    kind: 'Status',
    apiVersion: 'v1',
    ...type.toObject(type.decode(unwrap(body)), TO_OBJECT),
  });
}
