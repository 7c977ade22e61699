/**
 * Failure → replacement Running along the automated path, by parts: a soak (docs/soak.md) of crashes and
 * partitions only, and for each database on a failed node when its node went NotReady, when a run
 * started, when the fencer's taint appeared and when the replacement was Running elsewhere (seconds
 * after the failure), with the medians per path (the health check, an EC2 or ECS event, the runbook's
 * `fencer fence` on bare metal).
 * Usage: npm run bench:automated [-- --world aws|alibaba|rbd --profile quick|shipped --minutes 8 --seed 1]
 */
import { cpus, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import type { Recovery } from '../lab/soak/report.js';
import { FaultKind, type SoakWorld } from '../lab/soak/schedule.js';
import { runSoak } from '../lab/soak/soak.js';
import type { ProfileName } from '../lab/soak/world.js';

const { values } = parseArgs({
  options: {
    world: { type: 'string', default: 'aws' },
    profile: { type: 'string', default: 'quick' },
    minutes: { type: 'string', default: '8' },
    seed: { type: 'string', default: '1' },
  },
});

const cell = (s: number | null) => (s === null ? '—' : s.toFixed(1));
const median = (xs: readonly number[]) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted.length === 0 ? null : (sorted[Math.floor((sorted.length - 1) / 2)] ?? null);
};

const load = loadavg()[0]?.toFixed(2);
process.stdout.write(`${cpus().length} cores, load ${load} at the start\n`);
const result = await runSoak({
  world: values.world as SoakWorld,
  profile: values.profile as ProfileName,
  minutes: Number(values.minutes),
  seed: Number(values.seed),
  kinds: [FaultKind.Partition, FaultKind.Crash],
  onProgress: (line) => process.stderr.write(`${line}\n`),
});

const rows = result.report.recoveries;
process.stdout.write(`\n${result.report.text.split('\n').slice(0, 2).join('\n')}\n\n`);
process.stdout.write(
  '| database | incident | path | NotReady | run started | tainted | Running | while down |\n|---|---|---|---|---|---|---|---|\n',
);
for (const r of rows) {
  process.stdout.write(
    `| ${r.volume} on ${r.node} | ${r.incident} (step ${r.step}) | ${r.path} | ${cell(r.notReady)} | ${cell(r.runStarted)} | ${cell(r.tainted)} | ${cell(r.running)} | ${r.whileDown ? 'yes' : 'no'} |\n`,
  );
}
const byPath = new Map<string, Recovery[]>();
for (const r of rows.filter((x) => x.whileDown)) byPath.set(r.path, [...(byPath.get(r.path) ?? []), r]);
process.stdout.write('\nmedians, seconds after the failure (recovered while the node was down):\n');
for (const [path, rs] of byPath) {
  const m = (pick: (r: Recovery) => number | null) =>
    cell(median(rs.map(pick).filter((v): v is number => v !== null)));
  process.stdout.write(
    `  ${path} (n=${rs.length}): NotReady ${m((r) => r.notReady)}, run started ${m((r) => r.runStarted)}, tainted ${m((r) => r.tainted)}, Running ${m((r) => r.running)}\n`,
  );
}
if (byPath.size === 0) process.stdout.write('  none\n');
process.stdout.write(`violations: ${result.violations.length}; records in ${result.dir}\n`);
process.exit(result.violations.length === 0 ? 0 : 1);
