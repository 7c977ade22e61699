/**
 * `fencer controller`: the fencing use cases as a long-running process, for clusters no cloud function
 * can reach (on premises, Ceph), for teams whose policy keeps cluster credentials out of cloud functions,
 * and beside a health checker (medik8s NHC) that wants a remediator. Every replica follows the cluster;
 * only the one holding the leader Lease acts (leader-election.ts), for one term at a time (term.ts).
 * The fencing runs are the serverless ones (the same steps, claims, records and Events), run in-process.
 */
import { LeaderElector } from './leader-election.js';
import type { ControllerDeps, ControllerSettings } from './settings.js';
import { Term } from './term.js';

export type { ControllerDeps, ControllerSettings } from './settings.js';

export class FencerController {
  readonly #deps: ControllerDeps;
  readonly #settings: ControllerSettings;
  readonly #elector: LeaderElector;
  #ready = false;

  constructor(deps: ControllerDeps, settings: ControllerSettings) {
    this.#deps = deps;
    this.#settings = settings;
    this.#elector = new LeaderElector({
      lock: deps.lock,
      identity: settings.identity,
      log: deps.fencer.log,
      onLeadership: (leading) => deps.metrics.leading(leading),
      ...(settings.election ? { timing: settings.election } : {}),
    });
  }

  get leading(): boolean {
    return this.#elector.leading;
  }

  /** Ready once the API server answered this replica (leader or not): it can take over at any time. */
  get ready(): boolean {
    return this.#ready;
  }

  /** Runs until `signal` aborts: then the leader hands its runs over and gives the Lease back. */
  async run(signal: AbortSignal): Promise<void> {
    await this.#deps.fencer.cluster.serverVersion();
    this.#ready = true;
    this.#deps.fencer.log.info('controller started', {
      identity: this.#settings.identity,
      cluster: this.#settings.cluster,
      lease: this.#deps.lock.describe(),
    });
    try {
      await this.#elector.run(
        (term, leadership) => new Term(this.#deps, this.#settings, term, leadership).run(),
        signal,
      );
    } finally {
      this.#ready = false;
    }
  }
}
