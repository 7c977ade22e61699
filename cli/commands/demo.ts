import { type Command, Option } from 'commander';
import { startLab } from '../../lab/lab.js';
import { fencerCureStep, manualCureStep, replayIncident } from '../../lab/scenarios/replay.js';

/** `fencer demo`: replays the Multi-Attach incident in the local lab and prints its timeline. */
export function registerDemo(program: Command): void {
  program
    .command('demo')
    .description(
      'replay the Multi-Attach incident in the local lab (real control plane, EC2 or ECS emulator) and print the timeline',
    )
    .option('--quiet', 'print only the final timeline, not each line as it happens')
    .addOption(
      new Option('--provider <cloud>', 'the cloud of the lab: EC2 and EBS, or Alibaba ECS and cloud disks')
        .choices(['aws', 'alibaba'])
        .default('aws'),
    )
    .option(
      '--manual',
      'cure by hand as in the article (stop the instance, taint the node) instead of with the fencer',
    )
    .action(async (options: { quiet?: boolean; manual?: boolean; provider: 'aws' | 'alibaba' }) => {
      const out = (line: string) => process.stdout.write(`${line}\n`);
      out(
        'kube-fencer demo: starting the lab (etcd, kube-apiserver, kube-controller-manager, kube-scheduler,',
      );
      const cloud = options.provider === 'alibaba' ? 'an ECS emulator' : 'an EC2 emulator';
      out(`csi-attacher, a CSI controller, ${cloud}, 2 simulated kubelets)...`);
      const started = Date.now();
      const lab = await startLab({ nodes: 2, provider: options.provider, onStep: (m) => out(`  lab: ${m}`) });
      try {
        out(`  lab: up in ${((Date.now() - started) / 1000).toFixed(1)} s; logs in ${lab.runDir}/logs\n`);
        out('timeline (seconds since the replay began):');
        const cure = options.manual ? manualCureStep : fencerCureStep;
        const result = await replayIncident(lab, cure, options.quiet ? undefined : out);
        if (options.quiet) out(result.timeline.render());
        out('');
        out(
          `The replacement pod was stuck on Multi-Attach until the cure; it ran ${result.recoverySeconds.toFixed(1)} s after the cure began.`,
        );
      } finally {
        await lab.stop();
      }
    });
}
