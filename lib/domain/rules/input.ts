/**
 * Bad input is an error, not a guess (SAFETY.md rule 10), and a run never switches target (rule 3).
 */
import { Compliant, halt, NotApplicable } from '../decision.js';
import { unservedImages } from '../isolation.js';
import { Phase } from '../phases.js';
import { Reason } from '../reasons.js';
import { committed, type FenceRule } from './context.js';

export const nodeExists: FenceRule = {
  id: 'node-exists',
  contract: 'SAFETY.md rule 10: unknown nodes are refused',
  check: (ctx) =>
    ctx.node !== null
      ? Compliant
      : // A node that vanished mid-run (cloud controller deleted it) is a failure, not a policy refusal.
        halt(committed(ctx) ? Phase.Failed : Phase.Refused, Reason.NodeNotFound, [
          `node ${ctx.request.node} not found`,
        ]),
};

export const providerIdPresent: FenceRule = {
  id: 'provider-id-present',
  contract: 'SAFETY.md rule 10: missing providerIDs are refused',
  check: (ctx) => {
    if (ctx.node === null) return NotApplicable;
    const missing =
      ctx.node.providerId === null ||
      (ctx.observation.instance?.resolved === false && ctx.observation.instance.problem === 'missing');
    if (!missing) return Compliant;
    // A node whose volumes are all fenced at the storage layer (bare metal with Ceph) needs no machine.
    if (!ctx.plan.machine) return NotApplicable;
    const unserved = unservedImages(ctx.observation);
    return halt(Phase.Refused, Reason.ProviderIdMissing, [
      `node ${ctx.node.name} has no spec.providerID`,
      ...(unserved.length > 0
        ? [`no storage fencer reaches its images ${unserved.join(', ')}: only a power-off could release them`]
        : []),
    ]);
  },
};

export const providerIdParses: FenceRule = {
  id: 'provider-id-parses',
  contract: 'SAFETY.md rule 10: unparseable providerIDs and unknown providers are refused',
  check: (ctx) => {
    const instance = ctx.observation.instance;
    if (instance === null) return NotApplicable;
    if (instance.resolved) return Compliant;
    if (instance.problem === 'missing') return NotApplicable;
    const evidence = [`providerID ${JSON.stringify(ctx.node?.providerId)}: ${instance.detail}`];
    return instance.problem === 'unknown-provider'
      ? halt(Phase.Refused, Reason.UnknownProvider, evidence)
      : halt(Phase.Refused, Reason.ProviderIdUnparseable, evidence);
  },
};

export const sameTarget: FenceRule = {
  id: 'same-target',
  contract: 'SAFETY.md rules 3 and 7: a run acts only on the node and instance it committed to',
  check: (ctx) => {
    const target = ctx.history.target;
    if (target === null || ctx.node === null) return NotApplicable;
    // A storage-only target names no machine; a node that now names one changed identity too.
    const machine = ctx.ref === null ? null : `${ctx.ref.provider}/${ctx.ref.instanceId}`;
    const committedMachine = target.provider === null ? null : `${target.provider}/${target.instanceId}`;
    const same = ctx.node.uid === target.nodeUid && machine === committedMachine;
    return same
      ? Compliant
      : halt(Phase.Refused, Reason.TargetChanged, [
          `committed to node uid ${target.nodeUid}, instance ${committedMachine ?? 'none'}`,
          `now node uid ${ctx.node.uid}, instance ${machine ?? 'none'}`,
        ]);
  },
};

export const evidenceNamesInstance: FenceRule = {
  id: 'evidence-names-instance',
  contract: 'SAFETY.md rule 3: evidence about another instance proves nothing',
  check: (ctx) => {
    if (ctx.ref === null || ctx.power === null) return NotApplicable;
    return ctx.power.instanceId === ctx.ref.instanceId
      ? Compliant
      : halt(Phase.Refused, Reason.InstanceMismatch, [
          `node names ${ctx.ref.instanceId}, power evidence names ${ctx.power.instanceId}`,
        ]);
  },
};
