/**
 * Un-fencing the nodes that come back: a node carrying the fencer's out-of-service taint and record that
 * reports Ready again is un-fenced through the same use case as `fencer unfence`, which lifts the taint
 * (and the fencer's own blocklist entries) only after a power cycle later than the fence (SAFETY.md
 * rule 6). A refusal is logged and counted; the node is tried again on its next change, at most once a
 * minute, so a node that came back without a power cycle keeps its fence and says why.
 */
import { FENCER_ANNOTATION, OUT_OF_SERVICE_TAINT } from '../../domain/node-marks.js';
import type { NodeView } from '../../ports/cluster.js';
import { runUnfence } from '../fence/run-loop.js';
import type { FencerDeps } from '../shared/deps.js';

export interface UnfenceSettings {
  readonly cluster: string;
  /** How long one un-fence waits for Ready and the power cycle before it refuses. */
  readonly waitSeconds: number;
  /** The least time between two tries for one node. */
  readonly retryAfterMs: number;
}

/** A Ready node that still wears the fencer's taint and record: one to un-fence. */
export const isReturnedFencedNode = (node: NodeView): boolean =>
  node.ready === 'True' &&
  FENCER_ANNOTATION.fenceRecord in node.annotations &&
  node.taints.some((t) => t.key === OUT_OF_SERVICE_TAINT.key && t.effect === OUT_OF_SERVICE_TAINT.effect);

export class ReturnedNodes {
  readonly #deps: FencerDeps;
  readonly #settings: UnfenceSettings;
  readonly #term: AbortSignal;
  readonly #running = new Map<string, Promise<void>>();
  readonly #triedAt = new Map<string, number>();

  constructor(deps: FencerDeps, settings: UnfenceSettings, term: AbortSignal) {
    this.#deps = deps;
    this.#settings = settings;
    this.#term = term;
  }

  /** Looks at every node once (a new term: what came back while nobody led). */
  async checkAll(): Promise<void> {
    for (const node of await this.#deps.cluster.listNodes()) this.#consider(node);
  }

  /** Looks at one node as a watch event showed it. */
  check(node: NodeView): void {
    this.#consider(node);
  }

  async drain(): Promise<void> {
    await Promise.all(this.#running.values());
  }

  #consider(node: NodeView): void {
    if (this.#term.aborted || this.#running.has(node.name) || !isReturnedFencedNode(node)) return;
    const last = this.#triedAt.get(node.name);
    const now = this.#deps.clock.now().getTime();
    if (last !== undefined && now - last < this.#settings.retryAfterMs) return;
    this.#triedAt.set(node.name, now);
    const run = this.#unfence(node.name).finally(() => this.#running.delete(node.name));
    this.#running.set(node.name, run);
  }

  async #unfence(node: string): Promise<void> {
    const request = {
      node,
      cluster: this.#settings.cluster,
      dryRun: false,
      waitSeconds: this.#settings.waitSeconds,
    };
    try {
      const report = await runUnfence(this.#deps, request, {
        timeoutSeconds: this.#settings.waitSeconds + 60,
        signal: this.#term,
      });
      const fields = { node, outcome: report.outcome, reason: report.reason, message: report.message };
      if (report.outcome === 'unfenced') this.#deps.log.info('node un-fenced after its power cycle', fields);
      else this.#deps.log.warn('node came back but was not un-fenced', fields);
    } catch (error) {
      this.#deps.log.error('un-fencing a returned node failed', { node, error: (error as Error).message });
    }
  }
}
