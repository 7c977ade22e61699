import { type Command, Option } from 'commander';
import type { FencerDeps } from '../../lib/app/shared/deps.js';
import type { FencingStarter } from '../../lib/app/sweep/index.js';
import { SWEEP_CLASS_SENTENCES } from '../../lib/domain/sweep/classes.js';
import { EXIT_CODES_HELP, ExitCode } from '../exit-codes.js';
import { type ConnectionOptions, duration, int, positiveInt } from '../options.js';
import { printResult } from '../print.js';
import { requireOption } from '../usage.js';

const HELP = `
Classes (each finding carries its objects, evidence, the EC2 cross-check and the next safe action):
${Object.entries(SWEEP_CLASS_SENTENCES)
  .map(([c, s]) => `  ${c.padEnd(27)} ${s}`)
  .join('\n')}

Report-only by default. With --remediate the sweep acts only where it is provably safe:
  - deletes a VolumeAttachment whose node no longer exists, and only when EC2 proves, in this
    sweep, that its disk is not attached to a machine that could still write (a refusal says why);
  - fences nodes NotReady longer than --not-ready-threshold that still hold volumes, through the
    same fence run as \`fencer fence\`, within the cluster's in-flight limit (\`fencer limits\`).

Every sweep but a --dry-run also keeps standing storage fences alive: for each node with the fencer's
own taint and recorded Ceph blocklist entries, it lengthens those that would lapse while the node stays
fenced (unless its machine is proven off), and fails (exit 4) when a recorded entry is no longer listed.
It needs the FENCER_CEPH_* settings of \`fencer fence\` for that; without them it says "unchecked".

Examples:
  fencer sweep --cluster prod --region eu-west-1
  fencer sweep --cluster prod --region eu-west-1 --output json > sweep.json
  fencer sweep --cluster prod --region eu-west-1 --remediate --dry-run
  fencer sweep --cluster prod --region eu-west-1 --remediate --fail-on-findings

${EXIT_CODES_HELP}`;

interface SweepOptions extends ConnectionOptions {
  readonly remediate: boolean;
  readonly dryRun: boolean;
  readonly failOnFindings: boolean;
  readonly notReadyThreshold: number;
  readonly stuckDeletingThreshold: number;
  readonly attachErrorThreshold: number;
  readonly maxProviderCalls: number;
  readonly maxUnhealthy: number;
  readonly leaseGrace: number;
  readonly fenceTimeout: number;
}

/** Fences in this process, one run at a time, through the same loop as `fencer fence`. */
const inProcessStarter = (deps: FencerDeps, options: SweepOptions, cluster: string): FencingStarter => ({
  async start(node) {
    const [{ parseFenceRequest }, { runFence }] = await Promise.all([
      import('../../lib/config/fence-request.js'),
      import('../../lib/app/fence/run-loop.js'),
    ]);
    const request = parseFenceRequest({
      node,
      cluster,
      limits: {
        maxUnhealthyNodes: options.maxUnhealthy,
        leaseGraceSeconds: options.leaseGrace,
      },
    });
    const report = await runFence(deps, request, { timeoutSeconds: options.fenceTimeout });
    const detail = `fence run ${report.runId}: ${report.outcome} (${report.message})`;
    if (report.outcome === 'fenced') return { status: 'done', detail };
    return {
      status: report.outcome === 'refused' ? 'refused' : 'failed',
      reason: report.reason ?? undefined,
      detail,
    };
  },
});

export function registerSweep(program: Command): void {
  const command = program
    .command('sweep')
    .description(
      'find zombie VolumeAttachments, stuck detaches and topology blockers, cross-checked with EC2',
    );
  command
    .option(
      '--remediate',
      'delete provably dead VolumeAttachments and fence long-NotReady nodes (default: report only)',
      false,
    )
    .option('--dry-run', 'with --remediate: say what would be done, change nothing', false)
    .option(
      '--fail-on-findings',
      'exit 5 when there is any finding, 4 when the provider cross-check failed (findings unproven)',
      false,
    )
    .option(
      '--not-ready-threshold <duration>',
      'NotReady this long with volumes attached: fence',
      duration('--not-ready-threshold'),
      180,
    )
    .option(
      '--stuck-deleting-threshold <duration>',
      'deleting this long: stuck',
      duration('--stuck-deleting-threshold'),
      600,
    )
    .option(
      '--attach-error-threshold <duration>',
      'failing to attach this long: stuck',
      duration('--attach-error-threshold'),
      300,
    )
    .option('--max-provider-calls <n>', 'EC2 calls one sweep may make', int('--max-provider-calls'), 50)
    .option(
      '--chunk-size <n>',
      'objects per page of each Kubernetes list, as kubectl reads them (default: 500, and 2000 for the VolumeAttachments and PVs, read in protobuf)',
      positiveInt,
    )
    .option(
      '--max-unhealthy <n>',
      'start no fencing when more nodes than this are unhealthy',
      int('--max-unhealthy'),
      3,
    )
    .option(
      '--lease-grace <duration>',
      'for fencing: a Lease this fresh means alive',
      duration('--lease-grace'),
      40,
    )
    .addOption(
      new Option('--fence-timeout <duration>', 'give up on one fence run after')
        .argParser(duration('--fence-timeout'))
        .default(900),
    )
    .addHelpText('after', HELP)
    .action(async (_local: SweepOptions, self: Command) => {
      const options = self.optsWithGlobals<SweepOptions>();
      const cluster = requireOption(options.cluster, '--cluster', 'or set FENCER_CLUSTER');
      const { parseSweepRequest } = await import('../../lib/config/sweep-request.js');
      const request = parseSweepRequest({
        cluster,
        remediate: options.remediate,
        dryRun: options.dryRun,
        thresholds: {
          notReadySeconds: options.notReadyThreshold,
          stuckDeletingSeconds: options.stuckDeletingThreshold,
          attachErrorSeconds: options.attachErrorThreshold,
        },
        limits: { maxUnhealthyNodes: options.maxUnhealthy },
        maxProviderCalls: options.maxProviderCalls,
      });
      const { connect } = await import('../access.js');
      const { deps } = await connect(options, {
        use: { command: 'sweep', remediate: options.remediate },
        cloud: true,
      });
      const [{ sweep }, { renderSweep }] = await Promise.all([
        import('../../lib/app/sweep/index.js'),
        import('../render-sweep.js'),
      ]);
      const report = await sweep(deps, request, inProcessStarter(deps, options, cluster));
      await printResult(report, options.output, () => renderSweep(report));
      // A cross-check that failed leaves findings unproven: never reported as clean to a script that asked.
      const unproven = options.failOnFindings && report.crossCheck.failed > 0;
      // A standing fence that could not be kept, or whose entries are gone, fails the sweep whatever it asked.
      const fenceTrouble = report.fences.failed > 0 || report.fences.lost > 0;
      if (report.remediations.failed > 0 || unproven || fenceTrouble) process.exitCode = ExitCode.Failed;
      else if (options.failOnFindings && report.findings.length > 0) process.exitCode = ExitCode.Findings;
      else process.exitCode = ExitCode.Ok;
    });
}
