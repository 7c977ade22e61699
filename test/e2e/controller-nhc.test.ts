/**
 * `fencer controller --nhc-remediation` as medik8s Node Healthcheck's remediator, its own process against
 * the lab as user kube-fencer (deploy/rbac.yaml and deploy/crds/rbac.yaml), with NHC's part played as its
 * code does (lab/scenarios/nhc-operator.ts: NHC's operator is not served by the Go module proxy here).
 * The controller's own health check is set far off (--not-ready-threshold 1h) and its own un-fencing off
 * (--no-unfence), so the fence and the un-fence here are the remediation's: NHC creates a
 * KubeFencerRemediation for the cut node-a, the controller proves the machine off, taints the node and
 * says Succeeded; NHC deletes it once node-a is healthy after a power cycle, and the controller un-fences
 * node-a before it lets the object go.
 */
import { CoreV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../../lab/kube-wait.js';
import { type Lab, startLab } from '../../lab/lab.js';
import {
  type ControllerReplica,
  labSealKey,
  startControllerReplica,
  waitReplicaReady,
} from '../../lab/scenarios/controller-process.js';
import {
  waitForRecoveryElsewhere,
  waitKubeletSilentFor,
  waitNodeNotReady,
} from '../../lab/scenarios/incident.js';
import { conditionOf, NHC_USER, type NhcOperator, playNhc } from '../../lab/scenarios/nhc-operator.js';
import { deployStatefulApp, type StatefulApp } from '../../lab/scenarios/stateful-app.js';
import { taintsOf, waitNodeReady } from '../support/lab-waits.js';

const OUT_OF_SERVICE = 'node.kubernetes.io/out-of-service=nodeshutdown:NoExecute';
const FINALIZER = 'remediation.kube-fencer.io/unfence';

describe('fencer controller as medik8s Node Healthcheck’s remediator', () => {
  let lab: Lab;
  let app: StatefulApp;
  let nhc: NhcOperator;
  let replica: ControllerReplica;

  beforeAll(async () => {
    lab = await startLab({ nodes: 3, identities: [{ user: NHC_USER, groups: [] }] });
    app = await deployStatefulApp(lab, { onNode: 'node-a' });
    nhc = await playNhc(lab);
    replica = await startControllerReplica(lab, {
      identity: 'remediator',
      sealKey: labSealKey(),
      args: ['--nhc-remediation', '--not-ready-threshold', '1h', '--no-unfence'],
    });
    await waitReplicaReady(replica);
    await eventually('the replica leads', async () => ((await replica.leading()) ? true : undefined));
  });
  afterAll(async () => {
    replica?.run.child.kill('SIGKILL');
    await lab?.stop();
  });

  it('fences the node of a remediation NHC creates, and says Succeeded with the proof', async () => {
    await lab.cut('node-a');
    await waitNodeNotReady(lab, 'node-a');
    // NHC waits its unhealthy condition's duration; the fencer's own rules want the Lease silent 40 s.
    await waitKubeletSilentFor(lab, 'node-a', 41);
    await nhc.createRemediation('node-a');

    const succeeded = await eventually(
      'the remediation Succeeded',
      async () => {
        const object = await nhc.remediationOf('node-a');
        return object && conditionOf(object, 'Succeeded')?.status === 'True' ? object : undefined;
      },
      { timeoutMs: 120_000 },
    );
    expect(succeeded.metadata.finalizers).toContain(FINALIZER);
    expect(conditionOf(succeeded, 'Processing')?.status).toBe('False');
    expect(conditionOf(succeeded, 'PoweredOffProven')).toMatchObject({ status: 'True' });
    expect(conditionOf(succeeded, 'PoweredOffProven')?.message).toContain(lab.node('node-a').instanceId);
    expect(await taintsOf(lab, 'node-a')).toContain(OUT_OF_SERVICE);
    await waitForRecoveryElsewhere(lab, app, 'node-a');
    expect(await replica.sample('kube_fencer_runs_started_total{source="nhc-remediation"}')).toBe(1);
    expect(await replica.sample('kube_fencer_runs_started_total{source="health-check"}')).toBe(0);
  });

  it('un-fences the node when NHC deletes the remediation after a power cycle, then lets the object go', async () => {
    await lab.restore('node-a');
    await waitNodeReady(lab, 'node-a');
    await nhc.deleteRemediation('node-a');
    await eventually(
      'the remediation gone',
      async () => ((await nhc.remediationOf('node-a')) === null ? true : undefined),
      { timeoutMs: 120_000 },
    );
    expect(await taintsOf(lab, 'node-a')).not.toContain(OUT_OF_SERVICE);
    const node = await lab.kubeConfig.makeApiClient(CoreV1Api).readNode({ name: 'node-a' });
    expect(node.metadata?.annotations?.['kube-fencer.io/fence-record']).toBeUndefined();
    expect(await replica.sample('kube_fencer_fencing_runs_total{outcome="unfenced"}')).toBe(1);
  });
});
