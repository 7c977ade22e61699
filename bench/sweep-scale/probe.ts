/**
 * One sweep or one health check as the deployed functions run them (lib/compose.ts's composition for
 * the sweep, the triggers' for the health check), bundled and run as its own process by the bench so
 * that its peak RSS is its own. Prints one JSON line: the use case's figures and the bytes it read
 * from the API server (counted on its sockets: headers and bodies, after TLS).
 * Usage: node probe.mjs sweep|health-check [maxUnhealthyNodes]; KUBECONFIG, AWS_REGION and
 * FENCER_CLUSTER from the environment.
 */
import { readFileSync } from 'node:fs';
import type { Socket } from 'node:net';
import { dirname } from 'node:path';
import { providerIdReaders } from '../../functions/shared/provider-ids.js';
import { kubeconfigEndpoint } from '../../lib/adapters/kubernetes/access/endpoints.js';
import type { ApiEndpoint } from '../../lib/adapters/kubernetes/api/endpoint.js';
import { KubeCluster } from '../../lib/adapters/kubernetes/index.js';
import { sweep } from '../../lib/app/sweep/index.js';
import { healthCheck } from '../../lib/app/triggers/health-check.js';
import { composeDeps } from '../../lib/compose.js';
import { ec2ComputeFencer } from '../../lib/compose-aws.js';
import { parseSweepRequest } from '../../lib/config/sweep-request.js';
import { DEFAULT_LIMITS } from '../../lib/domain/request.js';
import { createLogger, InMemoryMetrics } from '../../lib/observability/index.js';
import type { FenceRunInput, StartResult, Workflow } from '../../lib/ports/workflow.js';

const [what = '', maxUnhealthy] = process.argv.slice(2);
const path = process.env.KUBECONFIG ?? '';
const cluster = process.env.FENCER_CLUSTER ?? '';
const sockets: Socket[] = [];

/** The kubeconfig's endpoint, with every socket its agent opens kept for counting. */
function countingEndpoint(): ApiEndpoint {
  const endpoint = kubeconfigEndpoint(readFileSync(path, 'utf8'), { source: path, baseDir: dirname(path) });
  const patched = new WeakSet<object>();
  return {
    server: endpoint.server,
    async auth() {
      const auth = await endpoint.auth();
      const agent = auth.agent as unknown as { createConnection: (...a: unknown[]) => Socket };
      if (!patched.has(agent)) {
        patched.add(agent);
        const open = agent.createConnection.bind(agent);
        agent.createConnection = (...args: unknown[]) => {
          const socket = open(...args);
          sockets.push(socket);
          return socket;
        };
      }
      return auth;
    },
  };
}

/** Starts nothing: the bench measures what the health check reads, not Step Functions. */
class CountingWorkflow implements Workflow {
  started = 0;
  async start(name: string, _input: FenceRunInput): Promise<StartResult> {
    this.started++;
    return { kind: 'started', runId: `bench:${name}` };
  }
}

const bytesRead = () => sockets.reduce((sum, s) => sum + s.bytesRead, 0);
const silent = createLogger({ silent: true });

if (what === 'sweep') {
  // As the sweep function composes it: the EC2 fencer of the region, for the findings' cross-check.
  const region = process.env.AWS_REGION;
  const computeFencers = region ? [ec2ComputeFencer({ region, logger: silent })] : [];
  const deps = composeDeps({ endpoint: countingEndpoint(), computeFencers, log: silent });
  const report = await sweep(deps, parseSweepRequest({ cluster }));
  console.log(
    JSON.stringify({
      durationMs: report.durationMs,
      findings: report.findings.length,
      providerCalls: report.providerCalls,
      scanned: report.scanned,
      bytesRead: bytesRead(),
    }),
  );
} else if (what === 'health-check') {
  const workflow = new CountingWorkflow();
  const started = performance.now();
  const limits = {
    ...DEFAULT_LIMITS,
    maxUnhealthyNodes: Number(maxUnhealthy ?? DEFAULT_LIMITS.maxUnhealthyNodes),
  };
  const report = await healthCheck(
    {
      cluster: new KubeCluster(countingEndpoint()),
      compute: providerIdReaders,
      workflow,
      clock: { now: () => new Date() },
      log: silent,
      metrics: new InMemoryMetrics(),
    },
    {
      cluster,
      notReadyThresholdSeconds: 180,
      requestDefaults: {
        dryRun: false,
        strategy: 'auto',
        accelerate: true,
        allowTerminate: false,
        skipOsShutdown: false,
        forceDeleteTolerating: false,
        limits,
      },
    },
    'bench',
  );
  console.log(
    JSON.stringify({
      durationMs: Math.round(performance.now() - started),
      totalNodes: report.totalNodes,
      unhealthy: report.unhealthy.length,
      refused: report.refused,
      started: workflow.started,
      skipped: report.skipped.length,
      deferred: report.deferred.length,
      bytesRead: bytesRead(),
    }),
  );
} else {
  throw new Error(`usage: probe sweep|health-check [maxUnhealthyNodes], not ${what}`);
}
