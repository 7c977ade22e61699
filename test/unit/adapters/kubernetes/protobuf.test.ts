/**
 * The protobuf list decoder on bytes written here field by field, with Kubernetes' field numbers
 * (k8s.io/api generated.proto) typed out independently of the decoder's schema; that the real API
 * server's bytes decode the same is test/integration/kubernetes/protobuf-lists.test.ts. Also the
 * lister's content negotiation against a local HTTP server.
 */
import { once } from 'node:events';
import { Agent, createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import protobuf from 'protobufjs/light.js';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiClient, ApiStatusError } from '../../../../lib/adapters/kubernetes/api/api-client.js';
import {
  decodeListPage,
  decodeStatus,
  PROTOBUF_CONTENT_TYPE,
} from '../../../../lib/adapters/kubernetes/api/protobuf.js';
import { RawLister } from '../../../../lib/adapters/kubernetes/raw-list.js';

/** A message as (field, value) pairs: strings, booleans, varints, nested messages, raw bytes. */
type Field = readonly [number, string | boolean | number | Message | Uint8Array];
type Message = readonly Field[];

function encode(message: Message): Uint8Array {
  const writer = protobuf.Writer.create();
  for (const [field, value] of message) {
    if (typeof value === 'string') writer.uint32((field << 3) | 2).string(value);
    else if (typeof value === 'boolean') writer.uint32(field << 3).bool(value);
    else if (typeof value === 'number') writer.uint32(field << 3).int64(value);
    else if (value instanceof Uint8Array) writer.uint32((field << 3) | 2).bytes(value);
    else writer.uint32((field << 3) | 2).bytes(encode(value));
  }
  return writer.finish();
}

/** The answer's framing: `k8s\0`, then runtime.Unknown { typeMeta = 1, raw = 2, contentEncoding = 3 }. */
const answer = (object: Message, contentEncoding?: string): Buffer =>
  Buffer.concat([
    Buffer.from('k8s\0', 'latin1'),
    encode([
      [
        1,
        [
          [1, 'storage.k8s.io/v1'],
          [2, 'VolumeAttachmentList'],
        ],
      ],
      [2, encode(object)],
      ...(contentEncoding ? [[3, contentEncoding] as const] : []),
    ]),
  ]);

const time = (iso: string): Message => [[1, Date.parse(iso) / 1000]];
const mapEntry = (key: string, value: string): Message => [
  [1, key],
  [2, value],
];

// ObjectMeta: name 1, uid 5, resourceVersion 6, creationTimestamp 8, deletionTimestamp 9,
// annotations 12, finalizers 14, managedFields 17 (not declared by the decoder: skipped).
const attachmentMeta: Message = [
  [1, 'csi-0a1b'],
  [5, '9f7c1c52-61a5-4c39-a3a4-0d3d0b8a0c11'],
  [6, '4242'],
  [8, time('2026-11-30T08:00:00Z')],
  [9, time('2026-11-30T09:30:15Z')],
  [12, mapEntry('csi.alpha.kubernetes.io/node-id', 'i-0123456789abcdef0')],
  [14, 'external-attacher/ebs-csi-aws-com'],
  [
    17,
    [
      [1, 'kube-controller-manager'],
      [2, 'Update'],
    ],
  ],
];
// VolumeAttachment: metadata 1, spec 2 { attacher 1, source 2 { persistentVolumeName 1 }, nodeName 3 },
// status 3 { attached 1, attachmentMetadata 2, attachError 3 { time 1, message 2 } }.
const attachment: Message = [
  [1, attachmentMeta],
  [
    2,
    [
      [1, 'ebs.csi.aws.com'],
      [2, [[1, 'pvc-1']]],
      [3, 'node-a'],
    ],
  ],
  [
    3,
    [
      [1, true],
      [2, mapEntry('devicePath', '/dev/xvdba')],
      [
        3,
        [
          [1, time('2026-11-30T08:01:02Z')],
          [2, 'rpc error: in use'],
        ],
      ],
    ],
  ],
];

describe('decodeListPage', () => {
  it('reads the continue token and each item as the JSON API answers it: times in RFC 3339, undeclared fields skipped', () => {
    // ListMeta: resourceVersion 2, continue 3.
    const page = decodeListPage(
      'VolumeAttachmentList',
      answer([
        [
          1,
          [
            [2, '4300'],
            [3, 'eyJ2IjoibWV0YS5rOHMuaW8vdjEifQ'],
          ],
        ],
        [2, attachment],
        [2, [[1, [[1, 'csi-0a1c']]]]],
      ]),
    );

    expect(page.metadata).toEqual({ resourceVersion: '4300', continue: 'eyJ2IjoibWV0YS5rOHMuaW8vdjEifQ' });
    expect([...page.items]).toStrictEqual([
      {
        metadata: {
          name: 'csi-0a1b',
          uid: '9f7c1c52-61a5-4c39-a3a4-0d3d0b8a0c11',
          resourceVersion: '4242',
          creationTimestamp: '2026-11-30T08:00:00Z',
          deletionTimestamp: '2026-11-30T09:30:15Z',
          annotations: { 'csi.alpha.kubernetes.io/node-id': 'i-0123456789abcdef0' },
          finalizers: ['external-attacher/ebs-csi-aws-com'],
        },
        spec: { attacher: 'ebs.csi.aws.com', source: { persistentVolumeName: 'pvc-1' }, nodeName: 'node-a' },
        status: {
          attached: true,
          attachError: { time: '2026-11-30T08:01:02Z', message: 'rpc error: in use' },
        },
      },
      { metadata: { name: 'csi-0a1c' } },
    ]);
  });

  it('reads a zero time (an empty Time message, which JSON writes as null) as no time, never as 1970', () => {
    // VolumeError.time is not a pointer, so the API server writes it even when it is zero: as an empty
    // message, since metav1.Time marshals a zero time to no bytes.
    const page = decodeListPage(
      'VolumeAttachmentList',
      answer([
        [
          2,
          [
            [1, [[1, 'csi-0a1d']]],
            [
              3,
              [
                [
                  3,
                  [
                    [1, new Uint8Array()],
                    [2, 'rpc error: timed out'],
                  ],
                ],
              ],
            ],
          ],
        ],
      ]),
    );

    const [item] = [...page.items] as { status: { attachError: { time?: string; message: string } } }[];
    expect(item?.status.attachError.message).toBe('rpc error: timed out');
    expect(item?.status.attachError.time).toBeUndefined();
  });

  it('finds the list metadata wherever it comes, and a last page has no token', () => {
    const page = decodeListPage(
      'VolumeAttachmentList',
      answer([
        [2, attachment],
        [1, [[2, '4300']]],
      ]),
    );

    expect(page.metadata).toEqual({ resourceVersion: '4300' });
    expect([...page.items]).toHaveLength(1);
  });

  it("inlines a PV's volume source into its spec, as JSON does", () => {
    // PersistentVolumeSpec: persistentVolumeSource 2 { hostPath 3, local 20, csi 22 }, accessModes 3,
    // claimRef 4 { namespace 2, name 3 }, storageClassName 6; PersistentVolumeStatus: phase 1.
    const page = decodeListPage(
      'PersistentVolumeList',
      answer([
        [
          2,
          [
            [1, [[1, 'pvc-1']]],
            [
              2,
              [
                [
                  2,
                  [
                    [
                      22,
                      [
                        [1, 'ebs.csi.aws.com'],
                        [2, 'vol-1'],
                      ],
                    ],
                  ],
                ],
                [3, 'ReadWriteOnce'],
                [
                  4,
                  [
                    [2, 'db'],
                    [3, 'data-db-0'],
                  ],
                ],
                [6, 'gp3'],
              ],
            ],
            [3, [[1, 'Bound']]],
          ],
        ],
        [
          2,
          [
            [1, [[1, 'local-1']]],
            [2, [[2, [[20, [[1, '/mnt/disks/ssd1']]]]]]],
          ],
        ],
      ]),
    );

    expect([...page.items]).toStrictEqual([
      {
        metadata: { name: 'pvc-1' },
        spec: {
          csi: { driver: 'ebs.csi.aws.com', volumeHandle: 'vol-1' },
          accessModes: ['ReadWriteOnce'],
          claimRef: { namespace: 'db', name: 'data-db-0' },
          storageClassName: 'gp3',
        },
        status: { phase: 'Bound' },
      },
      // A source the views only tell apart by its presence decodes as an empty object.
      { metadata: { name: 'local-1' }, spec: { local: {} } },
    ]);
  });

  it('refuses bytes that are not a Kubernetes protobuf answer, and an encoding it cannot read', () => {
    expect(() => decodeListPage('VolumeAttachmentList', Buffer.from('{"items":[]}'))).toThrow(
      /not a Kubernetes protobuf answer/,
    );
    expect(() => decodeListPage('VolumeAttachmentList', answer([], 'gzip'))).toThrow(
      /unsupported content encoding gzip/,
    );
  });
});

describe('decodeStatus', () => {
  it('gives the JSON Status a protobuf error answer stands for', () => {
    // Status: status 2, message 3, reason 4, details 5 { name 1, kind 3 }, code 6.
    const status = decodeStatus(
      answer([
        [2, 'Failure'],
        [3, 'volumeattachments.storage.k8s.io "x" not found'],
        [4, 'NotFound'],
        [
          5,
          [
            [1, 'x'],
            [3, 'volumeattachments'],
          ],
        ],
        [6, 404],
      ]),
    );

    expect(JSON.parse(status)).toStrictEqual({
      kind: 'Status',
      apiVersion: 'v1',
      status: 'Failure',
      message: 'volumeattachments.storage.k8s.io "x" not found',
      reason: 'NotFound',
      details: { name: 'x', kind: 'volumeattachments' },
      code: 404,
    });
  });
});

describe('a list page asked for in protobuf', () => {
  let server: Server | undefined;
  const agent = new Agent({ keepAlive: true });
  afterEach(async () => {
    server?.closeAllConnections();
    if (server?.listening) await new Promise((resolve) => server?.close(resolve));
  });

  async function lister(reply: (request: IncomingMessage) => [number, string, Buffer]) {
    const accepts: (string | undefined)[] = [];
    server = createServer((request, response) => {
      accepts.push(request.headers.accept);
      const [status, type, body] = reply(request);
      response.writeHead(status, { 'Content-Type': type }).end(body);
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const api = new ApiClient({
      server: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      auth: async () => ({ agent, headers: {} }),
    });
    return { accepts, lister: new RawLister(api, 2) };
  }

  it('offers protobuf and JSON, and decodes whichever the server chose', async () => {
    let nth = 0;
    const { accepts, lister: paged } = await lister(() =>
      ++nth === 1
        ? [
            200,
            PROTOBUF_CONTENT_TYPE,
            answer([
              [1, [[3, 'next']]],
              [2, attachment],
            ]),
          ]
        : [200, 'application/json', Buffer.from('{"items":[{"metadata":{"name":"csi-0a1c"}}]}')],
    );

    const names = await paged.list(
      'listVolumeAttachment',
      '/apis/storage.k8s.io/v1/volumeattachments',
      {},
      (va: { metadata: { name: string } }) => va.metadata.name,
      { protobuf: 'VolumeAttachmentList' },
    );

    expect(names).toEqual(['csi-0a1b', 'csi-0a1c']);
    expect(accepts).toEqual([
      `${PROTOBUF_CONTENT_TYPE}, application/json`,
      `${PROTOBUF_CONTENT_TYPE}, application/json`,
    ]);
  });

  it('fails with the Status a protobuf error answer holds, as JSON text', async () => {
    const { lister: paged } = await lister(() => [
      410,
      PROTOBUF_CONTENT_TYPE,
      answer([
        [2, 'Failure'],
        [3, 'The provided continue parameter is too old'],
        [4, 'Expired'],
        [6, 410],
      ]),
    ]);

    const failure = await paged
      .page('/apis/storage.k8s.io/v1/volumeattachments', {}, 'old', { protobuf: 'VolumeAttachmentList' })
      .catch((error: unknown) => error);

    expect(failure).toBeInstanceOf(ApiStatusError);
    expect((failure as ApiStatusError).statusCode).toBe(410);
    expect(JSON.parse((failure as ApiStatusError).body)).toMatchObject({ reason: 'Expired', code: 410 });
  });
});
