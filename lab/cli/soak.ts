/**
 * `npm run soak -- --seed N --minutes M`: the automated path under a random fault schedule, judged by
 * an independent checker (lab/soak/). Prints the schedule's steps as they happen, then the report;
 * exits 1 when the checker found a violation, 2 on bad arguments.
 */

import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { REPO_ROOT } from '../paths.js';
import { isSabotage, SABOTAGES } from '../soak/sabotage.js';
import { FaultKind, type SoakWorld } from '../soak/schedule.js';
import { runSoak } from '../soak/soak.js';
import { PROFILES, type ProfileName } from '../soak/world.js';

const WORLDS: readonly SoakWorld[] = ['aws', 'alibaba', 'rbd'];
const KINDS: readonly string[] = Object.values(FaultKind);

const HELP = `npm run soak -- [options]

Runs the fencer's automated path as deployed (the health check on its schedule, the event router, the
state machine or Function Compute runs) in a lab of five workers and three databases, under faults
drawn from a seed, and checks the whole history with an independent checker.

  --world W       aws (EC2 + EBS, default), alibaba (ECS + cloud disks), rbd (Ceph RBD, EC2 and bare metal)
  --seed N        the schedule's seed (default: from the clock; printed, to replay)
  --minutes M     how long the schedule runs (default 30); the lab's start and the final wait come on top
  --profile P     shipped (default: the defaults as shipped, Kubernetes' own timings) or quick (short waits)
  --faults K,K    only these kinds: ${KINDS.join(', ')}
  --sabotage S    a deliberately broken fencer, to see the checker catch it: ${Object.keys(SABOTAGES).join(', ')}
  --baseline      no fencer at all: what Kubernetes alone does under the same schedule
  --out DIR       where the records and the report go (default soak-runs/<world>-<seed>-<time>)
  --help          this text

Exit status: 0 no violation, 1 violations found (each with its step: rerun with the same options to
replay it), 2 bad arguments.`;

function fail(message: string): never {
  process.stderr.write(`soak: ${message}\n(npm run soak -- --help)\n`);
  process.exit(2);
}

function options() {
  let parsed: ReturnType<typeof parseArgs>['values'];
  try {
    ({ values: parsed } = parseArgs({
      options: {
        world: { type: 'string', default: 'aws' },
        seed: { type: 'string' },
        minutes: { type: 'string', default: '30' },
        profile: { type: 'string', default: 'shipped' },
        faults: { type: 'string' },
        sabotage: { type: 'string' },
        baseline: { type: 'boolean', default: false },
        out: { type: 'string' },
        help: { type: 'boolean', default: false },
      },
    }));
  } catch (error) {
    fail((error as Error).message);
  }
  if (parsed.help) {
    process.stdout.write(`${HELP}\n`);
    process.exit(0);
  }
  const world = String(parsed.world) as SoakWorld;
  if (!WORLDS.includes(world)) fail(`--world must be one of ${WORLDS.join(', ')}, not ${world}`);
  const seed = parsed.seed === undefined ? Date.now() % 1_000_000 : Number(parsed.seed);
  if (!Number.isInteger(seed) || seed < 0) fail(`--seed must be a whole number, not ${parsed.seed}`);
  const minutes = Number(parsed.minutes);
  if (!(minutes >= 1 && minutes <= 24 * 60)) fail(`--minutes must be from 1 to 1440, not ${parsed.minutes}`);
  const profile = String(parsed.profile) as ProfileName;
  if (!(profile in PROFILES)) fail(`--profile must be one of ${Object.keys(PROFILES).join(', ')}`);
  const kinds = parsed.faults === undefined ? undefined : String(parsed.faults).split(',');
  const unknown = kinds?.filter((k) => !KINDS.includes(k));
  if (unknown?.length) fail(`unknown fault kinds: ${unknown.join(', ')}`);
  const sabotage = parsed.sabotage === undefined ? undefined : String(parsed.sabotage);
  if (sabotage !== undefined && !isSabotage(sabotage)) fail(`no sabotage ${sabotage}`);
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const out = resolve(String(parsed.out ?? join(REPO_ROOT, 'soak-runs', `${world}-${seed}-${stamp}`)));
  return {
    world,
    seed,
    minutes,
    profile,
    ...(kinds ? { kinds: kinds as FaultKind[] } : {}),
    ...(sabotage !== undefined && isSabotage(sabotage) ? { sabotage } : {}),
    baseline: Boolean(parsed.baseline),
    dir: out,
  };
}

const chosen = options();
const began = Date.now();
const stamp = () => `[${Math.round((Date.now() - began) / 1000)}s]`;
const result = await runSoak({
  ...chosen,
  onProgress: (line) => process.stderr.write(`${stamp()} ${line}\n`),
});
process.stdout.write(`${result.report.text}\n(records and report in ${result.dir})\n`);
process.exit(result.violations.length === 0 ? 0 : 1);
