/**
 * What the adversarial scenarios share to run the fencer and see what it did: the real `fencer` CLI run
 * as user kube-fencer (tracked, so a test that times out leaves no process behind), what it wrote (the
 * API server's audit log, its Events) and what it asked EC2 (the fault injector's log). Staging and
 * repair of the lab are in `staging.ts`.
 */
import type { ChildProcess } from 'node:child_process';
import { CoreV1Api } from '@kubernetes/client-node';
import { describeInstanceState } from '../../../lab/ec2-emulator.js';
import type { Ec2RequestRecord } from '../../../lab/ec2-faults/index.js';
import type { Lab } from '../../../lab/lab.js';
import { OUT_OF_SERVICE_TAINT } from '../../../lab/scenarios/incident.js';
import { type FencerRun, startFencer } from '../../support/fencer-cli.js';

export const OUT_OF_SERVICE = `${OUT_OF_SERVICE_TAINT.key}=${OUT_OF_SERVICE_TAINT.value}:${OUT_OF_SERVICE_TAINT.effect}`;

const running = new Set<ChildProcess>();

/** Starts the fencer; {@link killFencers} ends it if the test gives up first. */
export function startTracked(
  lab: Lab,
  args: readonly string[],
  onLine?: (line: string) => void,
  env?: Readonly<Record<string, string>>,
): FencerRun {
  const run = startFencer(lab, args, onLine, env);
  running.add(run.child);
  void run.done.finally(() => running.delete(run.child));
  return run;
}

/** `fencer <args> --output json` to completion. */
export const fencer = (lab: Lab, args: readonly string[]) =>
  startTracked(lab, [...args, '--output', 'json']).done;

/** `fencer fence NODE --lease-grace 40 --output json [extra]`: the lab's standard grace; later flags win. */
export const fence = (lab: Lab, node: string, extra: readonly string[] = []) =>
  fencer(lab, ['fence', node, '--lease-grace', '40', ...extra]);

/** Kills every fencer process a test started and left running (afterAll). */
export function killFencers(): void {
  for (const child of running) child.kill('SIGKILL');
  running.clear();
}

/** A point in the audit log; {@link writesSince} lists what came after it. */
export const auditMark = (lab: Lab): number => lab.fencerRequests().length;

/** The fencer's writes since `mark`, as `verb resource[/subresource] [name]`. */
export const writesSince = (lab: Lab, mark: number): string[] =>
  lab
    .fencerRequests()
    .slice(mark)
    .filter((e) => !['get', 'list', 'watch'].includes(e.verb))
    .map((e) => {
      const ref = e.objectRef ?? {};
      const resource = `${ref.resource ?? '?'}${ref.subresource ? `/${ref.subresource}` : ''}`;
      return `${e.verb} ${resource}${ref.name ? ` ${ref.name}` : ''}`.trim();
    });

/** The Events the fencer recorded on a Node (any incarnation of that name), oldest first. */
export async function fencerEventsOn(
  lab: Lab,
  node: string,
): Promise<{ type: string; reason: string; message: string }[]> {
  const events = await lab.kubeConfig
    .makeApiClient(CoreV1Api)
    .listNamespacedEvent({ namespace: 'default', fieldSelector: `involvedObject.name=${node}` });
  return events.items
    .filter((e) => e.involvedObject.kind === 'Node')
    .filter((e) => e.reportingComponent === 'kube-fencer' || e.source?.component === 'kube-fencer')
    .map((e) => ({ type: e.type ?? '', reason: e.reason ?? '', message: e.message ?? '' }));
}

/** Power-offs (not DryRun) the fencer asked EC2 for, for one instance. */
export const powerOffsOf = (lab: Lab, instanceId: string): Ec2RequestRecord[] =>
  lab.ec2Faults
    .requests()
    .filter((r) => ['StopInstances', 'TerminateInstances'].includes(r.action) && !r.dryRun)
    .filter((r) => r.instanceIds.includes(instanceId));

export const instanceState = (lab: Lab, instanceId: string): Promise<string> =>
  describeInstanceState(lab.ec2.client, instanceId);

/** The node's taints as `key=value:effect`. */
export async function taintsOn(lab: Lab, node: string): Promise<string[]> {
  const n = await lab.kubeConfig.makeApiClient(CoreV1Api).readNode({ name: node });
  return (n.spec?.taints ?? []).map((t) => `${t.key}=${t.value ?? ''}:${t.effect}`).sort();
}

/** Debian's libfaketime, which `.ci/run` installs. */
export const LIBFAKETIME = '/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1';

/** The environment that runs a process with its wall clock `offset` away (libfaketime syntax: "+2m", "-90s"). */
export const skewedClock = (offset: string): Record<string, string> => ({
  LD_PRELOAD: LIBFAKETIME,
  FAKETIME: offset,
  // Timers and timeouts keep real time: only what the process reads as "now" is wrong.
  FAKETIME_DONT_FAKE_MONOTONIC: '1',
});
