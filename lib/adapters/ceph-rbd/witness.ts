/**
 * Ceph's own witness of who holds an RBD image: the image's watchers (`rbd status`), read by a
 * read-only cephx user with Debian's `rbd` tool (ceph-common). The restful module cannot list
 * watchers (it sends mon commands only, and no mon or mgr command lists them), so this reads them the
 * way ceph-csi's node plugin does before it maps an image. Where the fencer runs without the tool (a
 * zip-packaged Lambda), the deployment has no witness and says so (docs/ceph.md).
 */
import type { HolderEvidence, ImageHolder } from '../../domain/observation.js';
import {
  type StorageCallOptions,
  StorageFault,
  type StorageImageRef,
  type StorageWitness,
} from '../../ports/storage-fencer.js';
import { canonicalIp } from './addresses.js';
import { type CephToolSettings, runCephTool } from './cli-tool.js';
import { CephApiError } from './errors.js';

/** How the witness reaches Ceph. */
export type RbdWitnessSettings = CephToolSettings;

/** A PV's image as ceph-csi names it in `spec.csi.volumeAttributes`. */
export function rbdImageOf(attributes: Readonly<Record<string, string>>): StorageImageRef | null {
  const { pool, imageName } = attributes;
  return pool && imageName ? { pool, image: imageName } : null;
}

/**
 * The IP of a watcher's address as `rbd status` prints it: `10.77.0.2:0/2976520395`,
 * `v1:10.77.0.2:0/…`, `[fd00::2]:0/…`. Undefined for anything else.
 */
export function watcherIp(address: string): string | undefined {
  const text = address.replace(/^v[12]:/, '');
  const v6 = /^\[([0-9a-fA-F:.]+)\]:\d+\/\d+$/.exec(text);
  const v4 = /^([0-9.]+):\d+\/\d+$/.exec(text);
  const ip = v6?.[1] ?? v4?.[1];
  return ip === undefined ? undefined : canonicalIp(ip);
}

/** `rbd status --format json`'s answer, read strictly: a watcher without a readable address fails the read. */
export function parseRbdStatus(image: string, json: string): ImageHolder[] {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    throw commandFailed(image, `rbd status answered something that is not JSON: ${json.slice(0, 200)}`);
  }
  const watchers = (value as { watchers?: unknown } | null)?.watchers;
  if (!Array.isArray(watchers)) throw commandFailed(image, 'rbd status answered no watchers list');
  return watchers.map((w: { address?: unknown; client?: unknown }) => {
    const address = typeof w?.address === 'string' ? watcherIp(w.address) : undefined;
    if (address === undefined) {
      throw commandFailed(image, `a watcher with an address the fencer cannot read: ${JSON.stringify(w)}`);
    }
    return { image, address, client: `client.${String(w.client ?? '?')}` };
  });
}

const commandFailed = (image: string, message: string, cause?: unknown): CephApiError =>
  new CephApiError(
    { fault: StorageFault.CommandFailed, operation: `rbd status ${image}`, retryable: true },
    message,
    cause === undefined ? undefined : { cause },
  );

/** {@link StorageWitness} on `rbd status`. */
export class RbdStatusWitness implements StorageWitness {
  readonly #settings: RbdWitnessSettings;
  readonly #now: () => Date;

  constructor(settings: RbdWitnessSettings, now: () => Date = () => new Date()) {
    this.#settings = settings;
    this.#now = now;
  }

  imageOf(attributes: Readonly<Record<string, string>>): StorageImageRef | null {
    return rbdImageOf(attributes);
  }

  async holders(
    images: readonly StorageImageRef[],
    options: StorageCallOptions = {},
  ): Promise<HolderEvidence> {
    const holders: ImageHolder[] = [];
    // One image at a time: a node holds a handful, and each read is one short tool run.
    for (const ref of images) holders.push(...(await this.#status(ref, options.signal)));
    return {
      source: `rbd status as client.${this.#settings.user}`,
      observedAt: this.#now().toISOString(),
      images: images.map((i) => `${i.pool}/${i.image}`),
      holders,
    };
  }

  async #status(ref: StorageImageRef, signal: AbortSignal | undefined): Promise<ImageHolder[]> {
    const image = `${ref.pool}/${ref.image}`;
    const out = await runCephTool(
      'rbd',
      ['status', '--format', 'json'],
      this.#settings,
      `rbd status ${image}`,
      signal,
      [image],
    );
    return parseRbdStatus(image, out);
  }
}
