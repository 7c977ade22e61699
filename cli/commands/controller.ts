import { hostname } from 'node:os';
import { type Command, Option } from 'commander';
import type { ControllerRunOptions } from '../controller/run.js';
import { EXIT_CODES_HELP } from '../exit-codes.js';
import { duration } from '../options.js';
import { requireOption } from '../usage.js';

const HELP = `
Runs the fencer as a long-lived controller (docs/deploy-controller.md), for clusters no cloud function
can reach and beside health checkers that want a remediator. Every replica follows the cluster; only the
one holding the leader Lease (--lease-namespace/--lease-name) acts:
  - the health check, on every Node change and at least every --health-check-interval: a node NotReady
    longer than --not-ready-threshold that holds ReadWriteOnce volumes gets the same fencing run as
    \`fencer fence\` (the same proofs, refusals, claims, records and Events), in this process;
  - the sweep, every --sweep-interval (report-only unless FENCER_SWEEP_REMEDIATE=true);
  - un-fencing: a fenced node that comes back Ready is un-fenced once its machine was power-cycled;
  - with --nhc-remediation, medik8s Node Healthcheck's remediations (docs/nhc.md): a KubeFencerRemediation
    for a node starts its fencing run and carries its conditions; deleting it un-fences the node.
A leader that stops (killed, partitioned, rolled) is replaced within the lease duration; the new leader
continues its runs from the checkpoints they keep on their Nodes, sealed with FENCER_CONTROLLER_SEAL_KEY
(the same secret of 32+ characters on every replica), and never powers a machine off twice.

Settings from the environment: FENCER_REQUEST_DEFAULTS (JSON: the limits and strategy of every run, as
the Lambda deployment takes them), AWS_REGION for EC2, ALIBABA_CLOUD_REGION and its keys for ECS,
FENCER_CEPH_* for Ceph RBD, FENCER_SWEEP_* for the sweep.
Served on --listen: GET /healthz, /readyz (200 once the API server answered), /metrics (Prometheus).
SIGTERM or SIGINT: the leader hands its runs over and gives the Lease back, then the process exits 0.

Examples:
  fencer controller --cluster prod --region eu-west-1
  fencer controller --cluster lab --kubeconfig protected-cluster.kubeconfig --listen 127.0.0.1:9090

${EXIT_CODES_HELP}`;

/** The options as commander gives them: the controller's own, the cluster not yet required. */
type ControllerOptions = Omit<ControllerRunOptions, 'cluster'> & { readonly cluster?: string };

export function registerController(program: Command): void {
  program
    .command('controller')
    .description('run as a long-lived controller with leader election, health probes and Prometheus metrics')
    .addOption(
      new Option('--lease-namespace <namespace>', 'namespace of the leader Lease')
        .env('FENCER_CONTROLLER_NAMESPACE')
        .default('kube-system'),
    )
    .addOption(
      new Option('--lease-name <name>', 'name of the leader Lease').default('kube-fencer-controller'),
    )
    .addOption(
      new Option('--identity <id>', "this replica's name in the leader Lease")
        .env('POD_NAME')
        .default(`${hostname()}-${process.pid}`, '<hostname>-<pid>'),
    )
    .option('--listen <host:port>', 'where /healthz, /readyz and /metrics are served', '0.0.0.0:8080')
    .option(
      '--not-ready-threshold <duration>',
      'fence a node NotReady this long that holds ReadWriteOnce volumes',
      duration('--not-ready-threshold'),
      60,
    )
    .option(
      '--health-check-interval <duration>',
      'look at the nodes at least this often (a Node change wakes it sooner)',
      duration('--health-check-interval'),
      30,
    )
    .option(
      '--sweep-interval <duration>',
      'sweep this often; 0 turns it off',
      duration('--sweep-interval'),
      600,
    )
    .option(
      '--run-timeout <duration>',
      'give a fencing run up after this long',
      duration('--run-timeout'),
      900,
    )
    .option('--no-unfence', 'do not un-fence nodes that come back after a power cycle')
    .option(
      '--nhc-remediation',
      "serve medik8s Node Healthcheck's KubeFencerRemediations (docs/nhc.md; the CRDs of deploy/crds must be installed); or FENCER_NHC_REMEDIATION=true",
      false,
    )
    .option(
      '--lease-duration <duration>',
      'a silent leader keeps the Lease this long',
      duration('--lease-duration'),
      15,
    )
    .option(
      '--renew-deadline <duration>',
      'the leader steps down when it could not renew for this long',
      duration('--renew-deadline'),
      10,
    )
    .option(
      '--retry-period <duration>',
      'how often the Lease is renewed or tried',
      duration('--retry-period'),
      2,
    )
    .addHelpText('after', HELP)
    .action(async (_local: ControllerOptions, self: Command) => {
      const options = self.optsWithGlobals<ControllerOptions>();
      const cluster = requireOption(options.cluster, '--cluster', 'or set FENCER_CLUSTER');
      const { runController } = await import('../controller/run.js');
      await runController({ ...options, cluster });
    });
}
