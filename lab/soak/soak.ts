/**
 * A soak: the automated path as deployed, in a lab of five workers and three databases, under a fault
 * schedule drawn from a seed, watched every second; at the end the checker judges the whole history
 * from the world's own records and the report tells incidents, recoveries, refusals and violations.
 * The same seed, minutes, world, profile and kinds replay the same schedule.
 */
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { bundleCli } from '../../cli/bundle.js';
import type { Lab } from '../lab.js';
import { REPO_ROOT } from '../paths.js';
import { FENCER_BIN, startFencer } from '../scenarios/fencer-process.js';
import { startAlibabaPath } from './alibaba-path.js';
import { startAwsPath } from './aws-path.js';
import { check, type Violation } from './checker.js';
import { applyFault, type FaultContext } from './faults.js';
import type { AutomatedRun, SoakPath } from './path.js';
import { clientWrites, instanceStates, powerOffCalls } from './recorder.js';
import type { RunEnd, SoakRecords, TruthEvent } from './records.js';
import { type SoakReport, soakReport } from './report.js';
import { isSabotage, type SabotageName, sabotagePlugin } from './sabotage.js';
import { type FaultKind, type PlannedFault, planFaults, type SoakWorld } from './schedule.js';
import { watchWorld } from './watch.js';
import {
  PROFILES,
  type ProfileName,
  SOAK_LIMITS,
  SOAK_NODES,
  type SoakLab,
  startSoakWorld,
} from './world.js';

export interface SoakOptions {
  readonly world: SoakWorld;
  readonly seed: number;
  readonly minutes: number;
  /** @default 'shipped' */
  readonly profile?: ProfileName;
  /** Only these kinds of fault. @default every kind the world has */
  readonly kinds?: readonly FaultKind[];
  /** A deliberately broken fencer (sabotage.ts), to show the checker catches it. */
  readonly sabotage?: SabotageName;
  /** No fencer at all: what Kubernetes alone does under the same schedule. */
  readonly baseline?: boolean;
  /** Where the records and the report go. @default the lab's run folder, `soak/` */
  readonly dir?: string;
  readonly onProgress?: (line: string) => void;
}

export interface SoakResult {
  readonly schedule: readonly PlannedFault[];
  readonly records: SoakRecords;
  readonly violations: readonly Violation[];
  readonly report: SoakReport;
  readonly dir: string;
}

/** How long the soak waits after the schedule for runs still going to end. */
const SETTLE_MS = 5 * 60_000;

const requestDefaults = {
  limits: {
    maxUnhealthyNodes: SOAK_LIMITS.maxUnhealthyNodes,
    maxUnhealthyFraction: SOAK_LIMITS.maxUnhealthyFraction,
  },
};

/** The operator's `fencer`: the built CLI, or one bundled with the sabotage. */
async function operatorCli(dir: string, sabotage?: SabotageName): Promise<readonly string[]> {
  if (!sabotage) return [process.execPath, FENCER_BIN];
  // Laid out as the package is (dist/ beside package.json, which the CLI reads for its version).
  const root = join(dir, 'cli');
  await bundleCli(REPO_ROOT, join(root, 'dist'), [sabotagePlugin(sabotage)]);
  copyFileSync(join(REPO_ROOT, 'package.json'), join(root, 'package.json'));
  return [process.execPath, join(root, 'dist', 'fencer.js')];
}

async function startPath(world: SoakWorld, soakLab: SoakLab, options: SoakOptions, dir: string) {
  const profile = PROFILES[options.profile ?? 'shipped'];
  const settings = {
    requestDefaults,
    notReadyThresholdSeconds: profile.notReadyThresholdSeconds,
    healthCheckEverySeconds: profile.healthCheckEverySeconds,
    plugins: options.sabotage ? [sabotagePlugin(options.sabotage)] : [],
    dir: join(dir, 'functions'),
    onError: (what: string, error: unknown) =>
      options.onProgress?.(`${what} failed: ${error instanceof Error ? error.message : String(error)}`),
  };
  return world === 'alibaba' ? startAlibabaPath(soakLab.lab, settings) : startAwsPath(soakLab.lab, settings);
}

/** The runbook's operator: a bare-metal node the automated path refused is fenced with the CLI. */
function runbookOperator(
  soakLab: SoakLab,
  path: SoakPath | null,
  cli: FaultContext['cli'],
): FaultContext['duringIncident'] {
  return async (node, until) => {
    if (!soakLab.bareMetal.includes(node) || !path) return;
    const since = Date.now();
    while (Date.now() < until - 30_000) {
      const refused = path
        .runs()
        .some((r) => r.node === node && r.startedAt >= since && r.outcome === 'refused');
      if (refused) {
        const seconds = Math.max(30, Math.floor((until - Date.now()) / 1000));
        await cli('manual', node, ['fence', node, '--timeout', `${seconds}s`, '--output', 'json']);
        return;
      }
      await sleep(2_000);
    }
  };
}

/** Says each automated run as it starts and as it ends, so a long soak shows its progress. */
function sayRuns(path: SoakPath, say: (line: string) => void): () => void {
  const seen = new Map<string, boolean>();
  const timer = setInterval(() => {
    for (const run of path.runs()) {
      const ended = run.endedAt !== null;
      if (seen.get(run.name) === ended) continue;
      if (!seen.has(run.name)) say(`run ${run.name} (${run.source}) started for ${run.node}`);
      if (ended)
        say(`run ${run.name}: ${run.outcome ?? 'no outcome'}${run.reason ? ` (${run.reason})` : ''}`);
      seen.set(run.name, ended);
    }
  }, 1_000);
  return () => clearInterval(timer);
}

async function waitForRuns(path: SoakPath | null, cliRuns: Promise<unknown>[]): Promise<void> {
  const deadline = Date.now() + SETTLE_MS;
  await Promise.race([Promise.allSettled(cliRuns), sleep(SETTLE_MS)]);
  while (path && Date.now() < deadline && path.runs().some((r) => r.endedAt === null)) await sleep(2_000);
}

export async function runSoak(options: SoakOptions): Promise<SoakResult> {
  const say = options.onProgress ?? (() => {});
  const profile = PROFILES[options.profile ?? 'shipped'];
  if (options.sabotage && !isSabotage(options.sabotage)) throw new Error(`no sabotage ${options.sabotage}`);
  const schedule = planFaults({
    seed: options.seed,
    minutes: options.minutes,
    world: options.world,
    nodes: SOAK_NODES,
    incidentSeconds: profile.incidentSeconds,
    ...(options.kinds ? { kinds: options.kinds } : {}),
  });
  say(`schedule: ${schedule.length} faults from seed ${options.seed}`);
  const soakLab = await startSoakWorld(options.world, profile, (line) => say(`lab: ${line}`));
  const { lab, apps } = soakLab;
  const dir = options.dir ?? join(lab.runDir, 'soak');
  mkdirSync(dir, { recursive: true });
  try {
    const command = await operatorCli(dir, options.sabotage);
    const path = options.baseline ? null : await startPath(options.world, soakLab, options, dir);
    const truth: TruthEvent[] = [];
    const cliRuns: Promise<RunEnd>[] = [];
    const manual: RunEnd[] = [];
    const stopSaying = path ? sayRuns(path, say) : () => {};
    const watch = watchWorld(lab, apps, {
      ...(path ? { onPowerOff: (node, state) => path.deliverStateChange(node, state) } : {}),
    });
    const cli: FaultContext['cli'] = (kind, node, args) => {
      const startedAt = Date.now();
      if (options.baseline) {
        return Promise.resolve({
          name: 'none',
          node,
          path: kind,
          startedAt,
          endedAt: startedAt,
          outcome: 'skipped',
          reason: 'baseline',
        });
      }
      // The operator's fence keeps the limits the automated path is deployed with.
      const limits =
        args[0] === 'fence'
          ? [
              '--max-unhealthy',
              `${SOAK_LIMITS.maxUnhealthyNodes}`,
              '--max-unhealthy-fraction',
              `${SOAK_LIMITS.maxUnhealthyFraction}`,
            ]
          : [];
      const run = startFencer(lab, [...args, ...limits], undefined, {}, command).done.then(
        ({ code, report, stderr }) => {
          const end: RunEnd = {
            name: report?.runId ?? `${kind}-${node}-${startedAt}`,
            node,
            path: kind,
            startedAt,
            endedAt: Date.now(),
            outcome: report?.outcome ?? (code === 0 ? 'ok' : 'failed'),
            reason:
              report?.reason ?? (code === 0 ? null : stderr.trim().split('\n').at(-1) || `exit ${code}`),
          };
          manual.push(end);
          say(`${kind} ${node}: ${end.outcome}${end.reason ? ` (${end.reason})` : ''}`);
          return end;
        },
      );
      cliRuns.push(run);
      return run;
    };
    const ctx: FaultContext = {
      lab,
      truth: (event) => truth.push({ t: Date.now(), ...event }),
      cli,
      redeliver: () => path?.redeliver() ?? Promise.resolve(),
      instanceState: async (node) => (await instanceStates(lab)).get(lab.node(node).instanceId) ?? 'unknown',
      duringIncident: runbookOperator(soakLab, path, cli),
    };
    const started = Date.now();
    say(
      `soak: ${options.world}, ${options.minutes} min, profile ${options.profile ?? 'shipped'}${options.sabotage ? `, sabotage ${options.sabotage}` : ''}${options.baseline ? ', no fencer (baseline)' : ''}`,
    );
    await Promise.all(
      schedule.map(async (fault) => {
        await sleep(Math.max(0, started + fault.at * 1000 - Date.now()));
        say(
          `+${fault.at}s step ${fault.step}: ${fault.kind}${fault.node ? ` ${fault.node}` : ''} (${fault.seconds}s)`,
        );
        await applyFault(ctx, fault).catch((error: Error) =>
          say(`step ${fault.step} failed: ${error.message}`),
        );
      }),
    );
    await sleep(Math.max(0, started + options.minutes * 60_000 - Date.now()));
    say('schedule done; waiting for runs to end');
    await waitForRuns(path, cliRuns);
    await sleep(5_000);
    await path?.stop();
    stopSaying();
    await watch.stop();
    const automated: readonly AutomatedRun[] = path?.runs() ?? [];
    const records: SoakRecords = {
      world: options.world,
      seed: options.seed,
      bareMetal: soakLab.bareMetal,
      samples: watch.samples,
      truth,
      powerOffs: await powerOffCalls(lab),
      writes: clientWrites(lab),
      runs: [...automated, ...manual],
      limits: SOAK_LIMITS,
    };
    const violations = check(records);
    const report = soakReport({ options, profile, schedule, records, violations, automated });
    writeRecords(dir, records, violations, report);
    return { schedule, records, violations, report, dir };
  } finally {
    await stopLab(lab);
  }
}

function writeRecords(
  dir: string,
  records: SoakRecords,
  violations: readonly Violation[],
  report: SoakReport,
) {
  writeFileSync(join(dir, 'records.json'), `${JSON.stringify(records)}\n`);
  writeFileSync(join(dir, 'violations.json'), `${JSON.stringify(violations, null, 2)}\n`);
  writeFileSync(join(dir, 'report.txt'), `${report.text}\n`);
}

async function stopLab(lab: Lab): Promise<void> {
  await lab.stop().catch(() => {});
}
