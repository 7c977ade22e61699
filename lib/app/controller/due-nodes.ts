/**
 * When the controller's health check is due for NotReady nodes: each node once, when it passes the
 * NotReady threshold (counted from its Ready condition's last change, as the health check counts). A
 * node that was looked at is due again only once its Ready condition changes again: its other changes
 * (conditions rewritten, taints, annotations) wake nothing, so a node that stays NotReady past the
 * threshold costs one health check, not one per change.
 */
import type { NodeView } from '../../ports/cluster.js';

export class DueNodes {
  readonly #thresholdMs: number;
  readonly #due = new Map<string, { readonly at: number; looked: boolean }>();

  constructor(thresholdSeconds: number) {
    this.#thresholdMs = thresholdSeconds * 1000;
  }

  /**
   * A node as a watch event shows it (`null`: deleted). Returns whether the set of NotReady nodes
   * changed: a node turned NotReady, Ready again, or went away.
   */
  seen(name: string, node: NodeView | null, nowMs: number): boolean {
    const was = this.#due.has(name);
    if (!node || node.ready === 'True') {
      this.#due.delete(name);
      return was;
    }
    // Without the time its Ready condition changed, the first sighting stands for it.
    if (!node.readySince && was) return false;
    const at = (node.readySince ? Date.parse(node.readySince) : nowMs) + this.#thresholdMs;
    if (this.#due.get(name)?.at !== at) this.#due.set(name, { at, looked: false });
    return !was;
  }

  has(name: string): boolean {
    return this.#due.has(name);
  }

  /** A health check ran at `nowMs`: every node past its threshold was looked at. */
  looked(nowMs: number): void {
    for (const due of this.#due.values()) if (due.at <= nowMs) due.looked = true;
  }

  /** Milliseconds until the next node not looked at passes its threshold (<= 0: now); Infinity when none. */
  untilNext(nowMs: number): number {
    let next = Number.POSITIVE_INFINITY;
    for (const due of this.#due.values()) if (!due.looked && due.at < next) next = due.at;
    return next - nowMs;
  }
}
