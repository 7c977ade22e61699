/**
 * The event router under the largest event it should meet: an AWS Health event naming 20,000 instances
 * of which 200 are nodes of a 2,000-node cluster. Runs the router's real code path (parseEvent →
 * routeTrigger, the Powertools logger and EMF metrics writing to stdout and stderr, which this script
 * counts and swallows) against an in-memory cluster and workflow, and prints the runs started, the largest run
 * input, the log lines and bytes written, and the time per event. Then the cost of an EC2 state change
 * against the cluster's size (bench/router-by-size.ts). Usage: npm run bench:router [-- --runs 7 --sizes 500,2000,5000]
 */
import { parseArgs } from 'node:util';
import { routeTrigger, type TriggerDeps, type TriggerSettings } from '../lib/app/triggers/index.js';
import { parseEvent } from '../lib/config/events.js';
import { createCloudWatchMetrics, createLogger } from '../lib/observability/index.js';
import { captureOutput } from '../test/support/output.js';
import { bigHealthEvent, ISSUE_SHAPE } from '../test/unit/functions/support/big-event.js';
import { FakeWorkflow, fakeDeps, REQUEST_DEFAULTS } from '../test/unit/functions/support/fakes.js';
import { routerBySize } from './router-by-size.js';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '7' },
    cap: { type: 'string', default: '10' },
    sizes: { type: 'string', default: '500,2000,5000' },
  },
});
const runs = Number(values.runs);
const settings: TriggerSettings = {
  cluster: 'prod',
  requestDefaults: REQUEST_DEFAULTS,
  maxRunsPerEvent: Number(values.cap),
};
const big = bigHealthEvent(ISSUE_SHAPE);

const samples: {
  ms: number;
  started: number;
  maxInput: number;
  lines: number;
  bytes: number;
  emf: number;
}[] = [];
for (let i = 0; i < runs; i++) {
  const workflow = new FakeWorkflow();
  const fake = fakeDeps({ nodes: big.nodes }, workflow);
  const deps: TriggerDeps = { ...fake.deps, log: createLogger(), metrics: createCloudWatchMetrics() };
  const { text: out } = await captureOutput(async () => {
    const t = performance.now();
    await routeTrigger(deps, settings, parseEvent(big.event));
    samples.push({
      ms: performance.now() - t,
      started: workflow.runs.size,
      maxInput: Math.max(
        ...[...workflow.runs.values()].map((r) => Buffer.byteLength(JSON.stringify(r.input))),
      ),
      lines: 0,
      bytes: 0,
      emf: 0,
    });
  });
  const lines = out.split('\n').filter((l) => l.trim() !== '');
  const last = samples.at(-1);
  if (last) {
    last.lines = lines.filter((l) => !l.includes('"_aws"')).length;
    last.emf = lines.length - last.lines;
    last.bytes = Buffer.byteLength(out);
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;
const first = samples[0];
console.log(
  `Node.js ${process.version}; ${runs} events of ${ISSUE_SHAPE.instances.toLocaleString('en')} instances, ` +
    `${ISSUE_SHAPE.named} of them nodes of a ${ISSUE_SHAPE.nodes.toLocaleString('en')}-node cluster; cap ${settings.maxRunsPerEvent}`,
);
console.log(`runs started per event      ${first?.started}`);
console.log(`largest run input           ${first?.maxInput} bytes`);
console.log(
  `log lines per event         ${first?.lines} (plus ${first?.emf} EMF metric lines), ${first?.bytes} bytes`,
);
console.log(
  `time per event (median)     ${median(samples.map((s) => s.ms)).toFixed(0)} ms ` +
    `(first ${first?.ms.toFixed(0)} ms, range ${Math.min(...samples.map((s) => s.ms)).toFixed(0)}–${Math.max(...samples.map((s) => s.ms)).toFixed(0)} ms)`,
);
await routerBySize(values.sizes.split(',').map(Number), Number(values.cap));
