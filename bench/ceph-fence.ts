/**
 * Prints the lab's Ceph figures: cluster ready time, resident memory, and a storage fence measured
 * against a live librbd client (fence request → blocklist confirmed → old watch gone → the other node
 * holds the lock), beside the same takeover after a crash, which waits for the OSD's watch timeout.
 * Then, unless `--no-lab`, the whole incident in the lab cured both ways (bench/ceph-cure.ts).
 * Usage: npm run bench:ceph [-- --runs 3] [--no-lab]
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { ensureCliBuilt } from '../cli/bundle.js';
import { type CephLab, startCephLab } from '../lab/ceph/ceph-lab.js';
import type { Holder } from '../lab/ceph/holder.js';
import { ensureCephPackages } from '../lab/ceph/packages.js';
import { REPO_ROOT } from '../lab/paths.js';
import { CephRbdStorageFencer } from '../lib/adapters/ceph-rbd/ceph-storage-fencer.js';
import { parseCephRbdSettings } from '../lib/adapters/ceph-rbd/settings.js';
import { benchCephCure } from './ceph-cure.js';

const { values } = parseArgs({
  options: { runs: { type: 'string', default: '3' }, 'no-lab': { type: 'boolean', default: false } },
});
const runs = Number(values.runs);

const rssMiB = (pid: number): number => {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : 0;
  } catch {
    return 0;
  }
};

const seconds = (from: number, to: number): number => (to - from) / 1000;

async function until(probe: () => Promise<boolean>, timeoutMs = 120_000): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await probe()) return Date.now();
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('bench: timed out');
}

async function locked(ceph: CephLab, node: string, image: string): Promise<{ holder: Holder; at: number }> {
  for (;;) {
    const holder = ceph.hold(node, image);
    const e = await holder.waitFor('lock result', (x) =>
      ['locked', 'lock-failed', 'open-failed'].includes(x.event),
    );
    if (e.event === 'locked') return { holder, at: e.t * 1000 };
    await holder.kill();
  }
}

interface Run {
  ready: number;
  confirmed: number;
  watchGone: number;
  firstRefusedWrite: number;
  takeover: number;
  crashWatchGone: number;
  crashTakeover: number;
}

async function once(memory: boolean): Promise<{ run: Run; mib?: { name: string; mib: number }[] }> {
  const t0 = Date.now();
  const ceph = await startCephLab({ nodes: ['node-a', 'node-b', 'node-c'] });
  const ready = seconds(t0, Date.now());
  const fencer = new CephRbdStorageFencer({
    settings: parseCephRbdSettings({
      mgrUrl: ceph.restful.url,
      keyName: ceph.restful.keyName,
      key: ceph.restful.key,
      ca: ceph.restful.certificate,
    }),
  });
  try {
    await Promise.all([ceph.createImage('fenced'), ceph.createImage('crashed')]);
    const { holder: zombie } = await locked(ceph, 'node-a', 'fenced');
    await zombie.waitFor('a write', (e) => e.event === 'write' && e.ok === true);
    // Warm the fencer's connection and dialect, as a Lambda's earlier steps would have.
    await fencer.verify({ node: 'node-a', addresses: [ceph.address('node-a')] });

    const start = Date.now();
    await fencer.fence({ node: 'node-a', addresses: [ceph.address('node-a')] }, { dryRun: false });
    const confirmed = Date.now();
    const watchGone = await until(async () => (await ceph.watchers('fenced')).length === 0);
    const refused = await zombie.waitFor('refused write', (e) => e.event === 'write' && e.ok === false);
    const { at: takeover } = await locked(ceph, 'node-b', 'fenced');

    // The cure without a fence: the old node is off (its client dies) and the OSD times the watch out.
    await locked(ceph, 'node-c', 'crashed');
    const crashAt = Date.now();
    await ceph.killClients('node-c');
    const crashWatchGone = await until(async () => (await ceph.watchers('crashed')).length === 0);
    const { at: crashTakeover } = await locked(ceph, 'node-b', 'crashed');

    const mib = memory
      ? [
          ...ceph.components.map((c) => ({ name: c.name, mib: rssMiB(c.pid) })),
          { name: 'ceph-admin (lab admin client)', mib: rssMiB(ceph.admin.pid) },
          { name: 'one node client (librbd)', mib: rssMiB(ceph.holders()[1]?.pid ?? 0) },
        ]
      : undefined;
    return {
      run: {
        ready,
        confirmed: seconds(start, confirmed),
        watchGone: seconds(start, watchGone),
        firstRefusedWrite: seconds(start, refused.t * 1000),
        takeover: seconds(start, takeover),
        crashWatchGone: seconds(crashAt, crashWatchGone),
        crashTakeover: seconds(crashAt, crashTakeover),
      },
      mib,
    };
  } finally {
    fencer.close();
    await ceph.stop();
  }
}

await ensureCephPackages();
const results: Run[] = [];
let memory: { name: string; mib: number }[] = [];
for (let i = 0; i < runs; i++) {
  const { run, mib } = await once(i === runs - 1);
  results.push(run);
  if (mib) memory = mib;
}
const median = (key: keyof Run): string => {
  const sorted = results.map((r) => r[key]).sort((a, b) => a - b);
  const mid = sorted[Math.floor(sorted.length / 2)] ?? 0;
  return `${mid.toFixed(2)} s (min ${sorted[0]?.toFixed(2)}, max ${sorted.at(-1)?.toFixed(2)})`;
};
console.log(`lab Ceph, ${runs} runs, medians:`);
console.log(`  cluster ready (network, mon, mgr, OSD, pool, restful)   ${median('ready')}`);
console.log(`  storage fence: request → blocklist confirmed            ${median('confirmed')}`);
console.log(`  storage fence: request → old watch gone                  ${median('watchGone')}`);
console.log(`  storage fence: request → old client's write refused      ${median('firstRefusedWrite')}`);
console.log(`  storage fence: request → other node holds the lock       ${median('takeover')}`);
console.log(`  no fence, old client dead: crash → watch timed out       ${median('crashWatchGone')}`);
console.log(`  no fence, old client dead: crash → other node holds lock ${median('crashTakeover')}`);
console.log('resident memory (MiB):');
for (const m of memory) console.log(`  ${m.name.padEnd(34)} ${m.mib.toFixed(0).padStart(6)}`);
console.log(
  `  ${'total'.padEnd(34)} ${memory
    .reduce((s, m) => s + m.mib, 0)
    .toFixed(0)
    .padStart(6)}`,
);

if (!values['no-lab']) {
  // The storage fence as a whole run of the fencer, in Kubernetes: up to the replacement pod Running.
  await ensureCliBuilt(REPO_ROOT);
  await benchCephCure(runs);
}
