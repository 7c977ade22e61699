/**
 * The soak's eyes and the world's physics: samples the world every second (recorder.ts), delivers the
 * provider's event for every machine seen powered off (EventBridge on either cloud delivers a state
 * change for every stop, the fencer's own included), and in a Ceph world makes a machine's clients die
 * with it: the lab's clients are processes on this host, so without this a machine the fencer powered
 * off would keep writing, which no real machine does.
 */
import type { Lab, LabNode } from '../lab.js';
import type { StatefulApp } from '../scenarios/stateful-app.js';
import { instanceStates, sampleWorld } from './recorder.js';
import type { Sample } from './records.js';

/** The machine states in which the provider's event bus tells the fencer (lib/config/events.ts). */
const POWERED_OFF = new Set(['stopped', 'terminated', 'Stopped', 'Deleted']);
const SAMPLE_EVERY_MS = 1_000;
const REAP_EVERY_MS = 250;

export interface WorldWatch {
  readonly samples: readonly Sample[];
  /** Stops sampling; resolves once the loops are done. */
  stop(): Promise<void>;
}

export interface WatchOptions {
  /** The provider's event bus: `node`'s machine is now in `state`. */
  readonly onPowerOff?: (node: LabNode, state: string) => Promise<void>;
  /** Sampling errors (the API server restarting, say): the sample is skipped, the soak goes on. */
  readonly onError?: (error: unknown) => void;
}

async function every(ms: number, running: () => boolean, tick: () => Promise<void>): Promise<void> {
  while (running()) {
    const started = Date.now();
    await tick();
    await new Promise((r) => setTimeout(r, Math.max(0, ms - (Date.now() - started))));
  }
}

/** Kills the Ceph clients of every node whose machine is off. */
async function reap(lab: Lab): Promise<void> {
  const ceph = lab.ceph;
  if (!ceph) return;
  const live = ceph.holders().filter((h) => !h.exited);
  if (live.length === 0) return;
  const states = await instanceStates(lab);
  const off = lab.nodes.filter((n) => !['running', 'Running'].includes(states.get(n.instanceId) ?? ''));
  await Promise.all(
    off.filter((n) => live.some((h) => h.node === n.name)).map((n) => ceph.killClients(n.name)),
  );
}

export function watchWorld(lab: Lab, apps: readonly StatefulApp[], options: WatchOptions = {}): WorldWatch {
  const samples: Sample[] = [];
  let running = true;
  const report = (error: unknown) => options.onError?.(error);
  const sampling = every(
    SAMPLE_EVERY_MS,
    () => running,
    async () => {
      const sample = await sampleWorld(lab, apps).catch((error: unknown) => report(error));
      if (!sample) return;
      const before = samples.at(-1);
      samples.push(sample);
      for (const node of lab.nodes) {
        const now = sample.nodes[node.name]?.instance ?? '';
        if (POWERED_OFF.has(now) && before?.nodes[node.name]?.instance !== now) {
          void options.onPowerOff?.(node, now).catch(report);
        }
      }
    },
  );
  const reaping = lab.ceph
    ? every(
        REAP_EVERY_MS,
        () => running,
        () => reap(lab).catch(report),
      )
    : Promise.resolve();
  return {
    samples,
    async stop() {
      running = false;
      await Promise.all([sampling, reaping]);
    },
  };
}
