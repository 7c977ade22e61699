/**
 * ceph-csi's RBD node plugin, as the simulated kubelets need it: NodeStage first checks the image's
 * watchers and refuses with `rbd image <pool>/<image> is still being used` while any client watches it,
 * then maps the image, here by starting the node's librbd client (which takes the exclusive lock and
 * writes). NodeUnstage releases it. A crashed node's clients die; a cut node's keep running.
 */
import { RBD_CSI_DRIVER } from '../../lib/adapters/ceph-rbd/plan.js';
import type { NodeStager, StagedVolume, StageResult } from '../kubelet-staging.js';
import type { CephLab } from './ceph-lab.js';
import type { Holder } from './holder.js';

export { RBD_CSI_DRIVER };

/** The client events that end a map: it holds the lock, or it could not. */
const MAPPED_OR_FAILED: ReadonlySet<string> = new Set(['locked', 'lock-failed', 'open-failed']);
/** How long NodeStage waits for the map before answering "not yet" (short: the kubelet tick waits with it). */
const MAP_WAIT_MS = 3000;

interface Mount {
  readonly volume: StagedVolume;
  readonly holder: Holder;
}

export class RbdNodeStager implements NodeStager {
  readonly driver = RBD_CSI_DRIVER;
  readonly #ceph: CephLab;
  readonly #mounts = new Map<string, Mount>();

  constructor(ceph: CephLab) {
    this.#ceph = ceph;
  }

  addressOf(node: string): string | undefined {
    return this.#ceph.network.nodes.get(node)?.ip;
  }

  async stage(node: string, volume: StagedVolume): Promise<StageResult> {
    const key = `${node} ${volume.pv}`;
    const image = volume.attributes.imageName ?? volume.handle;
    let mount = this.#mounts.get(key);
    if (!mount) {
      const check = await this.#ceph.checkWatchers(node, image);
      if (check.inUse !== false) return { state: 'failed', message: check.message };
      mount = { volume, holder: this.#ceph.hold(node, image) };
      this.#mounts.set(key, mount);
      // ceph-csi's NodeStage answers once `rbd map` has: wait for the client's lock (a while at most; a
      // client still starting is asked about again at the next call).
      await mount.holder
        .waitFor('lock result', (e) => MAPPED_OR_FAILED.has(e.event), MAP_WAIT_MS)
        .catch(() => {});
    }
    const state = mount.holder.state;
    if (state === 'locked') return { state: 'ready' };
    if (state === 'starting') return { state: 'pending' };
    // The map failed (lock refused, image unreadable) or the client died: report, then try again.
    this.#mounts.delete(key);
    const last = mount.holder.events().at(-1);
    return {
      state: 'failed',
      message: `rbd: map failed for ${this.#ceph.pool}/${image}: ${last?.error ?? state}`,
    };
  }

  async unstage(node: string, volume: StagedVolume): Promise<void> {
    const key = `${node} ${volume.pv}`;
    const mount = this.#mounts.get(key);
    this.#mounts.delete(key);
    await mount?.holder.release();
  }

  staged(node: string): readonly StagedVolume[] {
    return [...this.#mounts.entries()].filter(([key]) => key.startsWith(`${node} `)).map(([, m]) => m.volume);
  }

  /** The client currently holding (or trying to hold) a PV on a node. */
  holder(node: string, pv: string): Holder | undefined {
    return this.#mounts.get(`${node} ${pv}`)?.holder;
  }

  /** The node crashes: its clients die holding their watches, and nothing is mounted after a reboot. */
  async crash(node: string): Promise<void> {
    const mine = [...this.#mounts.entries()].filter(([key]) => key.startsWith(`${node} `));
    for (const [key] of mine) this.#mounts.delete(key);
    await Promise.all(mine.map(([, m]) => m.holder.kill()));
  }
}
