/**
 * The Ceph RBD incident cured two ways, each in a fresh lab with Ceph (a database on an RBD image on
 * node-a, its librbd client holding the lock and the watch):
 *   - the storage fence: node-a is cut (its client keeps writing), then the real `fencer fence`:
 *     fence request → blocklist confirmed → old watch gone → replacement pod Running on node-b; once
 *     with node-a on bare metal (no providerID: the blocklist alone) and once as a cloud node (its EC2
 *     machine is powered off as well, between the blocklist and the taint);
 *   - the watch timeout: node-a crashes (its client dies with it) and is tainted by hand at once; the
 *     replacement waits for the OSD to time the dead client's watch out.
 * Run by `npm run bench:ceph` after the adapter's own figures (the fence cure as many times as its
 * `--runs`), or alone: node --import tsx bench/ceph-cure.ts [--runs 3].
 */
import { parseArgs } from 'node:util';
import { eventually } from '../lab/kube-wait.js';
import { type Lab, startLab } from '../lab/lab.js';
import { runFencer } from '../lab/scenarios/fencer-process.js';
import { taintOutOfService, waitKubeletSilentFor, waitNodeNotReady } from '../lab/scenarios/incident.js';
import { cephOf, waitRbdClientWriting } from '../lab/scenarios/rbd-incident.js';
import { deployStatefulApp, type StatefulApp, waitForPod } from '../lab/scenarios/stateful-app.js';

const seconds = (from: number, to: number): number => (to - from) / 1000;

/** When the image's header no longer has a watcher at node-a's address (polled every 50 ms). */
const oldWatchGone = (lab: Lab, app: StatefulApp) =>
  eventually(
    'node-a’s watch gone',
    async () => {
      const ceph = cephOf(lab);
      const watchers = await ceph.watchers(app.volumeId);
      return watchers.some((w) => w.addr.startsWith(`${ceph.address('node-a')}:`)) ? undefined : Date.now();
    },
    { intervalMs: 50, timeoutMs: 180_000 },
  );

/** When the replacement pod is Running on node-b (polled every 100 ms). */
const replacementRunning = (lab: Lab, app: StatefulApp) =>
  waitForPod(
    lab,
    app.podName,
    (p) => p.spec?.nodeName === 'node-b' && p.status?.phase === 'Running',
    `${app.podName} Running on node-b`,
  ).then(() => Date.now());

async function withIncident<T>(
  run: (lab: Lab, app: StatefulApp) => Promise<T>,
  options: { readonly bareMetal?: boolean } = {},
): Promise<T> {
  const lab = await startLab({
    nodes: 2,
    ceph: true,
    ...(options.bareMetal ? { bareMetal: ['node-a'] } : {}),
  });
  try {
    const app = await deployStatefulApp(lab, { onNode: 'node-a', storage: 'rbd' });
    await waitRbdClientWriting(lab, app, 'node-a');
    return await run(lab, app);
  } finally {
    await lab.stop();
  }
}

/** The cure by `fencer fence`, with a zombie client on cut node-a (bare metal, or with its EC2 machine). */
const byFence = (bareMetal: boolean) =>
  withIncident(
    async (lab, app) => {
      await lab.cut('node-a');
      await waitNodeNotReady(lab, 'node-a');
      await waitKubeletSilentFor(lab, 'node-a', 41);
      const requested = Date.now();
      const watch = oldWatchGone(lab, app);
      const running = replacementRunning(lab, app);
      const { code, report } = await runFencer(lab, [
        'fence',
        'node-a',
        '--lease-grace',
        '40',
        '--output',
        'json',
      ]);
      if (code !== 0 || !report?.milestones.blocklistConfirmedAt) {
        throw new Error(`bench: fencer fence ended ${code}: ${report?.message}`);
      }
      const m = report.milestones;
      // Where the time before the decision went: the run's own steps, relative to the request.
      const steps = report.steps.map(
        (st) =>
          `${seconds(requested, Date.parse(st.at)).toFixed(2).padStart(6)} s  ${st.phase} ${st.rule ?? ''} ${st.action ?? ''}`,
      );
      return {
        steps,
        decided: seconds(requested, Date.parse(m.decidedToFenceAt ?? '')),
        confirmed: seconds(requested, Date.parse(m.blocklistConfirmedAt ?? '')),
        provenOff: m.provenOffAt ? seconds(requested, Date.parse(m.provenOffAt)) : Number.NaN,
        tainted: seconds(requested, Date.parse(m.taintedAt ?? '')),
        watchGone: seconds(requested, await watch),
        running: seconds(requested, await running),
      };
    },
    { bareMetal },
  );

/** The cure by waiting: node-a crashed (its client died), tainted by hand as soon as it is NotReady. */
const byWatchTimeout = () =>
  withIncident(async (lab, app) => {
    const crashed = Date.now();
    await lab.crash('node-a');
    const watch = oldWatchGone(lab, app);
    await waitNodeNotReady(lab, 'node-a');
    await taintOutOfService(lab, 'node-a');
    const tainted = Date.now();
    const running = replacementRunning(lab, app);
    return {
      tainted: seconds(crashed, tainted),
      watchGone: seconds(crashed, await watch),
      running: seconds(crashed, await running),
    };
  });

type FenceRun = Awaited<ReturnType<typeof byFence>>;
type Segment = Exclude<keyof FenceRun, 'steps'>;

/** Median and range of one segment over the fence runs. */
function spread(runs: readonly FenceRun[], key: Segment): string {
  const xs = runs.map((r) => r[key]).sort((a, b) => a - b);
  const mid = xs[Math.floor(xs.length / 2)] ?? Number.NaN;
  const range = xs.length > 1 ? ` (${xs[0]?.toFixed(2)}–${xs.at(-1)?.toFixed(2)})` : '';
  return `${mid.toFixed(2)} s${range}`.padStart(22);
}

/**
 * Runs the storage-fence cure `runs` times (medians: the mon's epoch interval and the machine's load
 * make single runs vary by a second) and the watch-timeout cure once, and prints them side by side.
 */
export async function benchCephCure(runs = 1): Promise<void> {
  const kinds = [
    { bareMetal: true, title: 'bare metal: the blocklist alone (no providerID, no power API)' },
    {
      bareMetal: false,
      title: 'cloud node: the blocklist, then its EC2 machine powered off, then the taint',
    },
  ];
  const results: { title: string; fences: FenceRun[] }[] = [];
  for (const kind of kinds) {
    const fences: FenceRun[] = [];
    for (let i = 0; i < runs; i++) fences.push(await byFence(kind.bareMetal));
    results.push({ title: kind.title, fences });
  }
  const timeout = await byWatchTimeout();
  const f = (s: number) => `${s.toFixed(2)} s`.padStart(9);
  console.log(`the RBD incident in the lab (Kubernetes, real Ceph; fence: median of ${runs}, range):`);
  for (const { title, fences } of results) {
    const median = (key: Segment) => spread(fences, key);
    console.log(
      `  storage fence (\`fencer fence\`, node-a cut, its client still writing), ${title}; from the request:`,
    );
    console.log(`    → decided to fence              ${median('decided')}`);
    console.log(`    → blocklist confirmed           ${median('confirmed')}`);
    if (fences.some((r) => !Number.isNaN(r.provenOff))) {
      console.log(`    → machine proven off            ${median('provenOff')}`);
    }
    console.log(`    → tainted                       ${median('tainted')}`);
    console.log(`    → old watch gone                ${median('watchGone')}`);
    console.log(`    → replacement Running on node-b ${median('running')}`);
    console.log('    the last fence run’s steps, from the request:');
    for (const line of fences.at(-1)?.steps ?? []) console.log(`      ${line}`);
  }
  console.log('  watch timeout (node-a crashed, its client dead, tainted by hand), from the crash:');
  console.log(`    → tainted                          ${f(timeout.tainted)}`);
  console.log(`    → old watch timed out              ${f(timeout.watchGone)}`);
  console.log(`    → replacement Running on node-b    ${f(timeout.running)}`);
  console.log(
    '  (the request includes the CLI process start; the watch timeout is the OSD’s osd_client_watch_timeout, 30 s)',
  );
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({ options: { runs: { type: 'string', default: '3' } } });
  await benchCephCure(Number(values.runs));
}
