/**
 * One leadership term of `fencer controller`: what the leader does until it stops leading. It takes over
 * the runs an earlier leader left (resume.ts), then reconciles: the health check on every Node change
 * and at least every interval (a NotReady node is looked at again the moment it passes the threshold),
 * the sweep on its schedule, and the un-fencing of nodes that come back. Runs are in-process
 * (in-process-workflow.ts). When the term ends, every run is handed over and awaited.
 */
import type { NodeChange } from '../../ports/node-changes.js';
import { sweep } from '../sweep/index.js';
import { healthCheck } from '../triggers/health-check.js';
import { sweepFencingStarter } from '../triggers/sweep-starter.js';
import type { TriggerDeps, TriggerSettings } from '../triggers/trigger-types.js';
import { DueNodes } from './due-nodes.js';
import { type EndedRun, InProcessWorkflow } from './in-process-workflow.js';
import type { Leadership } from './leader-election.js';
import { RemediationLoop } from './remediation-loop.js';
import { takeOverRuns } from './resume.js';
import type { ControllerDeps, ControllerSettings } from './settings.js';
import { ReturnedNodes } from './unfence-returned.js';
import { Wake } from './wake.js';

/** The least time between two passes: a burst of Node events makes one pass, not one each. */
const MIN_PASS_GAP_MS = 1000;
/** Pause before following the Nodes again after the watch failed. */
const WATCH_RETRY_MS = 5000;
/** How long an un-fence waits for the power cycle, and the least time between two tries for one node. */
const UNFENCE_WAIT_SECONDS = 60;
const UNFENCE_RETRY_MS = 60_000;

export class Term {
  readonly #deps: ControllerDeps;
  readonly #settings: ControllerSettings;
  readonly #signal: AbortSignal;
  readonly #wake = new Wake();
  readonly #workflow: InProcessWorkflow;
  readonly #returned: ReturnedNodes | null;
  readonly #triggers: TriggerDeps;
  readonly #triggerSettings: TriggerSettings;
  /** NotReady nodes, and when each is due for the health check. */
  readonly #due: DueNodes;
  readonly #remediations: RemediationLoop | null;
  #missed = false;

  constructor(
    deps: ControllerDeps,
    settings: ControllerSettings,
    signal: AbortSignal,
    leadership: Leadership,
  ) {
    this.#deps = deps;
    this.#settings = settings;
    this.#signal = signal;
    this.#due = new DueNodes(settings.notReadyThresholdSeconds);
    const fencer = deps.fencer;
    this.#workflow = new InProcessWorkflow(fencer, {
      checkpointsFor: deps.checkpointsFor,
      runTimeoutSeconds: settings.runTimeoutSeconds,
      term: signal,
      confirmLeading: () => leadership.confirm(),
      onEnded: (ended) => this.#ended(ended),
    });
    this.#returned = settings.unfence
      ? new ReturnedNodes(
          fencer,
          { cluster: settings.cluster, waitSeconds: UNFENCE_WAIT_SECONDS, retryAfterMs: UNFENCE_RETRY_MS },
          signal,
        )
      : null;
    this.#triggers = {
      cluster: fencer.cluster,
      compute: fencer.compute,
      workflow: this.#workflow,
      clock: fencer.clock,
      log: fencer.log,
      metrics: fencer.metrics,
    };
    this.#triggerSettings = { cluster: settings.cluster, requestDefaults: settings.requestDefaults };
    this.#remediations = deps.remediations
      ? new RemediationLoop(
          {
            triggers: this.#triggers,
            fencer,
            store: deps.remediations.store,
            codec: deps.remediations.codec,
            started: (name) => this.#workflow.has(name),
            onError: (error) => this.#failed('remediation', error),
          },
          this.#triggerSettings,
        )
      : null;
  }

  /** Leads until the term's signal, then hands every run over and waits for them. */
  async run(): Promise<void> {
    const watching = this.#follow();
    await this.#guarded('takeover', () =>
      takeOverRuns(this.#deps.fencer, this.#workflow, this.#resumeSettings()),
    );
    if (this.#returned) await this.#guarded('unfence', () => this.#returned?.checkAll() ?? Promise.resolve());
    const remediating = this.#remediations?.run(this.#signal);
    const sweepEvery = (this.#settings.sweep?.intervalSeconds ?? 0) * 1000;
    let nextSweep = sweepEvery > 0 ? Date.now() : Number.POSITIVE_INFINITY;
    while (!this.#signal.aborted) {
      const passStarted = Date.now();
      await this.#guarded('health-check', () => this.#healthCheck());
      if (this.#missed && this.#returned) {
        this.#missed = false;
        await this.#guarded('unfence', () => this.#returned?.checkAll() ?? Promise.resolve());
      }
      if (Date.now() >= nextSweep) {
        await this.#guarded('sweep', () => this.#sweep());
        nextSweep = Date.now() + sweepEvery;
      }
      this.#deps.metrics.runsInFlight(this.#workflow.inFlight);
      const untilDue = this.#due.untilNext(Date.now());
      const wait = Math.min(
        this.#settings.healthCheckIntervalSeconds * 1000,
        untilDue,
        nextSweep - Date.now(),
      );
      await this.#wake.sleep(Math.max(wait, passStarted + MIN_PASS_GAP_MS - Date.now()), this.#signal);
      const gap = passStarted + MIN_PASS_GAP_MS - Date.now();
      if (gap > 0 && !this.#signal.aborted) await new Promise((r) => setTimeout(r, gap));
    }
    await Promise.all([this.#workflow.drain(), this.#returned?.drain(), watching, remediating]);
    this.#deps.metrics.runsInFlight(0);
  }

  #resumeSettings() {
    return {
      cluster: this.#settings.cluster,
      requestDefaults: this.#settings.requestDefaults,
      checkpointsFor: this.#deps.checkpointsFor,
    };
  }

  /** Follows the Nodes for the whole term, again after a failure; each change may wake the loop. */
  async #follow(): Promise<void> {
    while (!this.#signal.aborted) {
      try {
        await this.#deps.fencer.cluster.followNodes((change) => this.#changed(change), this.#signal);
      } catch (error) {
        this.#deps.metrics.reconcileError('watch');
        this.#deps.fencer.log.error('following the Nodes failed; polling until the watch is back', {
          error: (error as Error).message,
        });
        await new Promise((r) => setTimeout(r, WATCH_RETRY_MS));
      }
    }
  }

  #changed(change: NodeChange | null): void {
    if (change === null) {
      this.#missed = true;
      this.#wake.wake();
      return;
    }
    const { node } = change;
    const changed = this.#due.seen(node.name, change.type === 'DELETED' ? null : node, Date.now());
    if (change.type !== 'DELETED') this.#returned?.check(node);
    // A node turning NotReady or Ready again is news for the health check; a heartbeat is not.
    if (changed) this.#wake.wake();
  }

  async #healthCheck(): Promise<void> {
    const report = await healthCheck(
      this.#triggers,
      {
        ...this.#triggerSettings,
        notReadyThresholdSeconds: this.#settings.notReadyThresholdSeconds,
        ...(this.#settings.controlPlaneLabels
          ? { controlPlaneLabels: this.#settings.controlPlaneLabels }
          : {}),
      },
      `controller:${this.#deps.fencer.clock.now().toISOString()}`,
    );
    // A node past its threshold was just looked at: due again only once its Ready condition changes.
    this.#due.looked(Date.now());
    // NotReady nodes the watch has not shown yet (they changed before this term): wake when each is due.
    for (const skip of report.skipped) {
      if (this.#due.has(skip.node) || !skip.why.startsWith('NotReady for less than')) continue;
      this.#due.seen(skip.node, await this.#deps.fencer.cluster.getNode(skip.node), Date.now());
    }
    for (const outcome of report.outcomes) {
      if (outcome.result === 'failed') this.#deps.metrics.reconcileError('health-check');
    }
  }

  async #sweep(): Promise<void> {
    const config = this.#settings.sweep;
    if (!config) return;
    const eventId = `controller:${this.#deps.fencer.clock.now().toISOString()}`;
    const fencing = config.request.remediate
      ? sweepFencingStarter(this.#triggers, this.#triggerSettings, eventId)
      : undefined;
    await sweep(this.#deps.fencer, config.request, fencing);
  }

  #ended(ended: EndedRun): void {
    this.#deps.metrics.runsInFlight(this.#workflow.inFlight);
    this.#remediations?.runEnded(ended);
    if (ended.handedOver || !ended.report) return;
    const { report } = ended;
    this.#deps.metrics.runEnded(report.outcome, report.durationSeconds);
    if (report.outcome === 'fenced') void this.#recorded(ended.request.node, report.finishedAt);
  }

  /** Time to recovery: from the node's NotReady (as the cluster says) to the fence's end. */
  async #recorded(nodeName: string, finishedAt: string): Promise<void> {
    const node = await this.#deps.fencer.cluster.getNode(nodeName).catch(() => null);
    if (!node?.readySince) return;
    const seconds = (Date.parse(finishedAt) - Date.parse(node.readySince)) / 1000;
    if (seconds >= 0) this.#deps.metrics.recovered(seconds);
  }

  async #guarded(loop: string, pass: () => Promise<unknown>): Promise<void> {
    try {
      await pass();
    } catch (error) {
      this.#failed(loop, error);
    }
  }

  #failed(loop: string, error: unknown): void {
    this.#deps.metrics.reconcileError(loop);
    this.#deps.fencer.log.error(`controller ${loop} pass failed`, {
      error: (error as Error).name,
      message: (error as Error).message,
    });
  }
}
