import type { Command } from 'commander';
import { EXIT_CODES_HELP } from '../exit-codes.js';
import { addFenceOptions, type FenceOptions } from '../options.js';
import { requireOption } from '../usage.js';
import { exitCodeFor, printReport, progressHandlers, stopOnPermanentError } from './report-output.js';

const HELP = `
What it does, in order (each step re-checks everything before acting):
  1. refuses if the node is Ready, its Lease is fresh (or it was never seen alive), another
     Node names the same instance, its addresses or CSI node IDs contradict the instance (or
     nothing but the providerID ties them), the instance is not tagged
     kubernetes.io/cluster/<cluster>, it is a control-plane node or opted out (annotation
     kube-fencer.io/opt-out), or too many nodes are unhealthy / being fenced (the in-flight
     limit is the cluster's: see \`fencer limits\`);
  2. powers the instance off through EC2 (StopInstances --force) and waits until EC2
     reports it stopped: that is the proof. For Ceph RBD images (FENCER_CEPH_* set) it
     first blocklists the node's addresses through the Ceph mgr and confirms the blocklist;
     a bare-metal node holding only RBD images is fenced by the blocklist alone;
  3. taints the node node.kubernetes.io/out-of-service=nodeshutdown:NoExecute, so
     Kubernetes evicts its pods and force-detaches its volumes;
  4. waits until the node's pods and VolumeAttachments are gone and EBS reports the disks
     detached. It never deletes a VolumeAttachment itself (only --strategy legacy on
     clusters older than 1.26 does). A pod that tolerates the taint and holds a volume
     stops the run at once (PodToleratesOutOfService), unless --force-delete-tolerating-pods.
Un-fence later with: fencer unfence NODE

Examples:
  fencer fence ip-10-0-1-23.ec2.internal --cluster prod --region eu-west-1 --dry-run
  fencer fence ip-10-0-1-23.ec2.internal --cluster prod --region eu-west-1
  fencer fence node-a --cluster prod --output json > report.json
  fencer fence node-a --cluster prod --timeout 5m --timeline-out incident.html

${EXIT_CODES_HELP}`;

export function registerFence(program: Command): void {
  const command = program
    .command('fence')
    .argument('<node>', 'name of the Kubernetes node to fence')
    .description('prove a dead node powered off through the cloud API, then release its volumes');
  addFenceOptions(command)
    .addHelpText('after', HELP)
    .action(async (node: string, _local: FenceOptions, self: Command) => {
      const options = self.optsWithGlobals<FenceOptions>();
      const { parseFenceRequest } = await import('../../lib/config/fence-request.js');
      const request = parseFenceRequest({
        node,
        cluster: requireOption(options.cluster, '--cluster', 'or set FENCER_CLUSTER'),
        dryRun: options.dryRun,
        strategy: options.strategy,
        accelerate: options.accelerate,
        allowTerminate: options.allowTerminate,
        skipOsShutdown: options.skipOsShutdown,
        forceDeleteTolerating: options.forceDeleteToleratingPods,
        limits: {
          maxUnhealthyNodes: options.maxUnhealthy,
          maxUnhealthyFraction: options.maxUnhealthyFraction,
          allowControlPlane: options.allowControlPlane,
          leaseGraceSeconds: options.leaseGrace,
          powerOffDeadlineSeconds: options.powerOffDeadline,
          drainDeadlineSeconds: options.drainDeadline,
        },
      });
      const { connect } = await import('../access.js');
      const { deps } = await connect(options, {
        use: {
          command: 'fence',
          // Force-deletion (after the taint, or of pods tolerating it) needs `delete pods`.
          deletesPods: options.accelerate || options.forceDeleteToleratingPods,
          strategy: options.strategy,
        },
        cloud: true,
      });
      const { runFence } = await import('../../lib/app/fence/run-loop.js');
      const progress = progressHandlers(options.output);
      const picture = options.timelineOut
        ? (await import('../timeline/write.js')).recordRun(deps, node, options.timelineOut, progress)
        : undefined;
      const stop = stopOnPermanentError(progress);
      const report = await runFence(deps, request, {
        timeoutSeconds: options.timeout,
        ...progress,
        ...(picture ? { onStep: picture.onStep } : {}),
        onRetry: stop.onRetry,
        signal: stop.signal,
      });
      await picture?.finish(report);
      const permanent = stop.error();
      // The run gave its claim back when it stopped (runFence), so the next run is not held up.
      if (permanent) throw permanent;
      await printReport(report, options.output);
      process.exitCode = exitCodeFor(report);
    });
}
