/**
 * Prints the lab's warm start time (binaries already cached) and the resident memory of each of
 * its processes. Usage: npm run bench:lab [-- --runs 3]
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { ensureLabBinaries } from '../lab/build/go-binaries.js';
import { ensureMoto } from '../lab/ec2-emulator.js';
import { startLab } from '../lab/lab.js';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '3' } } });
const runs = Number(values.runs);

/** Resident set size of a process and its descendants, in MiB (from /proc). */
function rssMiB(pid: number): number {
  const own = (p: number): number => {
    try {
      const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${p}/status`, 'utf8'));
      return m ? Number(m[1]) / 1024 : 0;
    } catch {
      return 0;
    }
  };
  let children: number[] = [];
  try {
    children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8')
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .map(Number);
  } catch {
    // no children file: count the process alone
  }
  return own(pid) + children.reduce((sum, c) => sum + rssMiB(c), 0);
}

await ensureLabBinaries();
await ensureMoto();
const times: number[] = [];
let memory: { name: string; mib: number }[] = [];
for (let i = 0; i < runs; i++) {
  const t0 = performance.now();
  const lab = await startLab({ nodes: 2 });
  times.push((performance.now() - t0) / 1000);
  if (i === runs - 1) {
    await new Promise((r) => setTimeout(r, 5000)); // let start-up bursts settle
    memory = lab.components.map((c) => ({ name: c.name, mib: rssMiB(c.pid) }));
    memory.push({
      name: 'this process (simulated kubelets + node)',
      mib: process.memoryUsage().rss / 1024 / 1024,
    });
  }
  await lab.stop();
}
const sorted = [...times].sort((a, b) => a - b);
console.log(
  `lab warm start, 2 nodes, ${runs} runs: median ${sorted[Math.floor(runs / 2)]?.toFixed(1)} s, min ${sorted[0]?.toFixed(1)} s, max ${sorted.at(-1)?.toFixed(1)} s`,
);
console.log('resident memory after start (MiB):');
for (const m of memory) console.log(`  ${m.name.padEnd(44)} ${m.mib.toFixed(0).padStart(6)}`);
console.log(
  `  ${'total'.padEnd(44)} ${memory
    .reduce((s, m) => s + m.mib, 0)
    .toFixed(0)
    .padStart(6)}`,
);
