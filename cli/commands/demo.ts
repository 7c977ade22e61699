import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { type Command, Option } from 'commander';
import { timelineOutOption } from '../options.js';
import { UsageError } from '../usage.js';

/** The lab runs from a checkout: its Go modules, CSI driver and manifests are not in an installed package. */
async function loadLab() {
  // The lab's Kubernetes client needs Node.js 22 (npm run demo runs the project's own, pinned).
  if (Number(process.versions.node.split('.')[0]) < 22) {
    throw new UsageError(
      `fencer demo needs Node.js 22 or newer (this is ${process.version}): run npm run demo`,
    );
  }
  const { REPO_ROOT } = await import('../../lab/paths.js');
  if (!existsSync(join(REPO_ROOT, 'lab', 'go', 'k8s', 'go.mod'))) {
    throw new UsageError(
      'fencer demo runs the local lab from a checkout of the repository: clone it, then npm ci && npm run demo',
    );
  }
  const [{ startLab }, replay, { replayRbdIncident }, { demoPicture }] = await Promise.all([
    import('../../lab/lab.js'),
    import('../../lab/scenarios/replay.js'),
    import('../../lab/scenarios/rbd-replay.js'),
    import('../../lab/timeline-picture.js'),
  ]);
  return { startLab, demoPicture, replayRbdIncident, ...replay };
}

/** The volume the replayed incident is about. */
type DemoStorage = 'disk' | 'rbd';

/** What `--storage rbd` cannot be combined with, and why. */
function refuseRbdWith(options: { manual?: boolean; timelineOut?: string; provider: string }): void {
  if (options.provider !== 'aws') {
    throw new UsageError(
      '--storage rbd runs the lab’s Ceph beside its EC2 emulator: drop --provider alibaba',
    );
  }
  if (options.manual) {
    throw new UsageError(
      '--storage rbd replays the cure with the fencer only; RUNBOOK.md, "Fencing an RBD node by hand", has the manual one',
    );
  }
  if (options.timelineOut) {
    throw new UsageError(
      '--timeline-out draws the cloud-disk incident only; --storage rbd prints its timeline',
    );
  }
}

/**
 * `fencer demo`: replays the Multi-Attach incident in the local lab and prints its timeline; with
 * `--storage rbd`, the Ceph RBD incident (the cut node's client still writing) and its storage fence.
 */
export function registerDemo(program: Command): void {
  program
    .command('demo')
    .description(
      'replay the Multi-Attach incident (or, with --storage rbd, a Ceph RBD image its cut node still writes to) in the local lab (real control plane, EC2 or ECS emulator, real Ceph) and print the timeline',
    )
    .option('--quiet', 'print only the final timeline, not each line as it happens')
    .addOption(
      new Option('--provider <cloud>', 'the cloud of the lab: EC2 and EBS, or Alibaba ECS and cloud disks')
        .choices(['aws', 'alibaba'])
        .default('aws'),
    )
    .addOption(
      new Option(
        '--storage <kind>',
        'the stuck volume: the cloud’s disk (Multi-Attach), or a Ceph RBD image held by the cut node’s still-connected client (a taint alone leaves it `still being used`, cured by a storage fence; starts a real Ceph, needs Debian’s ceph packages and root)',
      )
        .choices(['disk', 'rbd'])
        .default('disk'),
    )
    .option(
      '--manual',
      'cure by hand as in the article (stop the instance, taint the node) instead of with the fencer',
    )
    .addOption(timelineOutOption())
    .action(
      async (options: {
        quiet?: boolean;
        manual?: boolean;
        timelineOut?: string;
        provider: 'aws' | 'alibaba';
        storage: DemoStorage;
      }) => {
        const rbd = options.storage === 'rbd';
        if (rbd) refuseRbdWith(options);
        const { startLab, demoPicture, fencerCureStep, manualCureStep, replayIncident, replayRbdIncident } =
          await loadLab();
        const out = (line: string) => process.stdout.write(`${line}\n`);
        out(
          'kube-fencer demo: starting the lab (etcd, kube-apiserver, kube-controller-manager, kube-scheduler,',
        );
        const cloud = options.provider === 'alibaba' ? 'an ECS emulator' : 'an EC2 emulator';
        out(
          rbd
            ? `csi-attacher, a CSI controller as rbd.csi.ceph.com, ${cloud}, a Ceph cluster (mon, mgr, OSD), 2 simulated kubelets)...`
            : `csi-attacher, a CSI controller, ${cloud}, 2 simulated kubelets)...`,
        );
        const started = Date.now();
        const lab = await startLab({
          nodes: 2,
          provider: options.provider,
          ...(rbd ? { ceph: true } : {}),
          onStep: (m) => out(`  lab: ${m}`),
        });
        try {
          out(`  lab: up in ${((Date.now() - started) / 1000).toFixed(1)} s; logs in ${lab.runDir}/logs\n`);
          out('timeline (seconds since the replay began):');
          const cure = options.manual ? manualCureStep : fencerCureStep;
          const replay = rbd ? replayRbdIncident : replayIncident;
          const result = await replay(lab, cure, options.quiet ? undefined : out);
          if (options.quiet) out(result.timeline.render());
          out('');
          const summary = rbd
            ? `The replacement pod was stuck while node-a's client held the image (the taint alone leaves it on \`still being used\`); after the storage fence it ran ${result.recoverySeconds.toFixed(1)} s after the cure began.`
            : `The replacement pod was stuck on Multi-Attach until the cure; it ran ${result.recoverySeconds.toFixed(1)} s after the cure began.`;
          out(summary);
          if (options.timelineOut) {
            const { writeTimeline } = await import('../timeline/write.js');
            writeTimeline(options.timelineOut, demoPicture(lab, result.timeline, 'node-a', summary));
            out(`The incident's picture: ${options.timelineOut}`);
          }
        } finally {
          await lab.stop();
        }
      },
    );
}
