/**
 * Un-fence rules (SAFETY.md rule 6): remove only the taint the fencer added, only once the node is Ready
 * again AND its instance shows a power cycle (started after the fence). A node that comes back without a
 * power cycle may be a partitioned node that never stopped: its taint stays, loudly.
 */
import { ActionKind } from '../action.js';
import { act, Compliant, halt, NotApplicable } from '../decision.js';
import { PowerState } from '../instance.js';
import { surelyLaunchedAfter } from '../launch-time.js';
import { describeTaint } from '../node-marks.js';
import { Phase } from '../phases.js';
import { Reason } from '../reasons.js';
import { instant } from '../time.js';
import { type UnfenceRule, waitFor } from './unfence-context.js';

export const unfenceNodeExists: UnfenceRule = {
  id: 'unfence-node-exists',
  contract: 'SAFETY.md rule 10: unknown nodes are refused',
  check: (ctx) =>
    ctx.node === null
      ? halt(Phase.Refused, Reason.NodeNotFound, [`node ${ctx.request.node} not found`])
      : Compliant,
};

export const staleRecordCleared: UnfenceRule = {
  id: 'stale-record-cleared',
  contract: 'SAFETY.md rule 6: a fence record whose taint is gone proves nothing and adopts nothing',
  check: (ctx) => {
    const { node, taints } = ctx;
    if (node === null || taints === null || !taints.staleRecord) return NotApplicable;
    const record = node.fenceRecord;
    const evidence = [
      `fence record of run ${record?.runId} names ${record ? describeTaint(record.taint) : 'no taint'}, which is gone`,
    ];
    if (ctx.request.dryRun) {
      const then = taints.foreign.length > 0 ? 'and leave the other out-of-service taint alone' : 'and stop';
      return act(
        Phase.DryRunReported,
        null,
        `Dry run: would clear the stale fence record ${then}.`,
        evidence,
        0,
        Reason.StaleFenceRecord,
      );
    }
    return act(
      Phase.UnfenceAssess,
      {
        kind: ActionKind.ClearFenceRecord,
        node: node.name,
        expectedResourceVersion: node.resourceVersion,
        fenceRunId: record?.runId ?? '',
      },
      `The fencer's taint is no longer on node ${node.name}; clearing its stale fence record.`,
      evidence,
      0,
      Reason.StaleFenceRecord,
    );
  },
};

export const taintOwned: UnfenceRule = {
  id: 'taint-owned',
  contract: 'SAFETY.md rules 6 and 7: remove only the taint the fencer added; none of ours left is success',
  check: (ctx) => {
    const { node, taints } = ctx;
    if (node === null || taints === null || taints.ours !== null) return NotApplicable;
    const others = taints.foreign.map(describeTaint).join(', ');
    // This run removed the fencer's taint: done, whatever others' taints stay (they are theirs).
    const removedByThisRun = ctx.history.steps.some((step) => step.action === ActionKind.RemoveTaint);
    if (taints.foreign.length > 0 && !removedByThisRun) {
      return halt(Phase.Refused, Reason.TaintNotOwned, [
        `node ${node.name} carries ${others}, which the fencer did not add`,
      ]);
    }
    const still =
      taints.foreign.length > 0 ? ` It still carries ${others}, which is not the fencer's to remove.` : '';
    return act(
      Phase.Unfenced,
      null,
      `Node ${node.name} carries no out-of-service taint of the fencer's.${still}`,
    );
  },
};

export const unfenceInstanceResolved: UnfenceRule = {
  id: 'unfence-instance-resolved',
  contract: 'SAFETY.md rule 10: a power cycle can only be proven for an identified instance',
  check: (ctx) => {
    const instance = ctx.observation.instance;
    if (instance === null || instance.resolved) return instance === null ? NotApplicable : Compliant;
    // A node fenced at the storage layer only (bare metal) has no machine: its reboot is its bootID.
    if (instance.problem === 'missing' && ctx.node?.fenceRecord?.instanceId === '') return NotApplicable;
    const reason = {
      missing: Reason.ProviderIdMissing,
      unparseable: Reason.ProviderIdUnparseable,
      'unknown-provider': Reason.UnknownProvider,
    }[instance.problem];
    return halt(Phase.Refused, reason, [instance.detail]);
  },
};

export const nodeReadyAgain: UnfenceRule = {
  id: 'node-ready-again',
  contract: 'SAFETY.md rule 6: only after the node is Ready again',
  check: (ctx) => {
    if (ctx.node === null || ctx.node.ready === 'True') return NotApplicable;
    return waitFor(ctx, Reason.NodeNotReadyYet, [`node ${ctx.node.name} is Ready=${ctx.node.ready}`]);
  },
};

export const unfenceInstanceOwned: UnfenceRule = {
  id: 'unfence-instance-owned',
  contract: 'SAFETY.md rule 3: evidence counts only for the cluster’s own instance',
  check: (ctx) => {
    if (ctx.instance === null) return NotApplicable;
    const { ownership, ref } = ctx.instance;
    if (!ownership.ok)
      return waitFor(ctx, Reason.ProviderApiError, [`${ownership.error.name}: ${ownership.error.message}`]);
    if (ownership.value.owned && ctx.power !== null && ctx.power.instanceId !== ref.instanceId) {
      return halt(Phase.Refused, Reason.InstanceMismatch, [
        `node names ${ref.instanceId}, evidence ${ctx.power.instanceId}`,
      ]);
    }
    if (ownership.value.owned) return Compliant;
    const reason = {
      'wrong-cluster': Reason.InstanceNotOwned,
      'wrong-account': Reason.WrongAccount,
      'wrong-region': Reason.WrongRegion,
      // Gone: no power cycle of it can ever be shown, so its taint is not lifted on its behalf.
      'not-found': Reason.InstanceNotFound,
    }[ownership.value.reason];
    return halt(Phase.Refused, reason, [ownership.value.detail]);
  },
};

const sameWholeSecond = (a: string, b: string): boolean =>
  Math.floor(instant(a, 'launchTime') / 1000) === Math.floor(instant(b, 'fenceRecord.fencedAt') / 1000);

export const powerCycled: UnfenceRule = {
  id: 'power-cycled',
  contract: 'SAFETY.md rule 6: only after the instance was started later than the fence',
  check: (ctx) => {
    const record = ctx.node?.fenceRecord;
    if (record == null || ctx.node === null) return NotApplicable;
    if (record.instanceId === '' && ctx.instance === null) {
      // No compute provider to ask: a bootID other than the one recorded at the fence proves a reboot.
      const { bootId } = ctx.node;
      const rebooted = bootId !== null && record.bootId != null && bootId !== record.bootId;
      if (rebooted) return Compliant;
      return waitFor(ctx, Reason.NoPowerCycleSinceFence, [
        `node ${ctx.node.name} boot ${bootId ?? 'unknown'}; boot at the fence ${record.bootId ?? 'not recorded'}`,
      ]);
    }
    // Fail closed: without an identified instance there is no evidence of a power cycle.
    if (ctx.instance === null)
      return halt(Phase.Refused, Reason.NoPowerCycleSinceFence, ['no instance resolved']);
    // A power cycle proves something only for the machine that was fenced.
    if (record.instanceId !== ctx.instance.ref.instanceId) {
      return halt(Phase.Refused, Reason.InstanceMismatch, [
        `the fence record names ${record.instanceId}, the node now names ${ctx.instance.ref.instanceId}`,
      ]);
    }
    const power = ctx.instance.power;
    if (!power.ok)
      return waitFor(ctx, Reason.ProviderApiError, [`${power.error.name}: ${power.error.message}`]);
    const { state, launchTime, instanceId } = power.value;
    const fencedAt = instant(record.fencedAt, 'fenceRecord.fencedAt');
    // A launch time known only to its minute may stand for a start before the fence: only a surely later one counts.
    const cycled = state === PowerState.Running && surelyLaunchedAfter(power.value, fencedAt);
    if (cycled) return Compliant;
    return waitFor(ctx, Reason.NoPowerCycleSinceFence, [
      `instance ${instanceId} is ${state}, launched ${launchTime ?? 'at an unknown time'}; fenced at ${record.fencedAt}`,
      ...(launchTime !== undefined && sameWholeSecond(launchTime, record.fencedAt)
        ? [
            'the launch time falls in the same second as the fence, and providers report launch times to the ' +
              'second at best: a start that close cannot be told from one before the fence. Stop and start ' +
              'the instance once more.',
          ]
        : []),
    ]);
  },
};

export const unfenceDryRun: UnfenceRule = {
  id: 'unfence-dry-run',
  contract: 'SAFETY.md rule 8: dry run changes nothing and says what would have happened',
  check: (ctx) => {
    if (!ctx.request.dryRun || ctx.node === null) return NotApplicable;
    const entries = ctx.node.fenceRecord?.blocklist ?? [];
    const lift = entries.length > 0 ? `lift the fencer's blocklist entries ${entries.join(', ')}, then ` : '';
    return act(
      Phase.DryRunReported,
      null,
      `Dry run: would ${lift}remove the out-of-service taint and fence record from node ${ctx.node.name}.`,
    );
  },
};

export const liftBlocklist: UnfenceRule = {
  id: 'lift-blocklist',
  contract:
    "SAFETY.md rule 6: lift exactly the fencer's own blocklist entries, only after a power cycle, before the taint",
  check: (ctx) => {
    const entries = ctx.node?.fenceRecord?.blocklist ?? [];
    if (ctx.node === null || entries.length === 0) return NotApplicable;
    const storage = ctx.observation.storage;
    if (storage === null) {
      return waitFor(ctx, Reason.StorageUnreachable, [
        `the fence record lists blocklist entries (${entries.join(', ')}) but no storage fencer is configured`,
      ]);
    }
    if (!storage.blocklist.ok) {
      return waitFor(ctx, Reason.StorageUnreachable, [
        `${storage.blocklist.error.name}: ${storage.blocklist.error.message}`,
      ]);
    }
    const listed = new Set([
      ...storage.blocklist.value.found.map((e) => e.entry),
      ...storage.blocklist.value.missing.filter((e) => e.until !== undefined).map((e) => e.entry),
    ]);
    const left = entries.filter((entry) => listed.has(entry));
    if (left.length === 0) return NotApplicable;
    return act(
      Phase.Unfence,
      { kind: ActionKind.StorageLift, node: ctx.node.name, entries: left },
      `Node ${ctx.node.name} is back after a reboot; lifting the fencer's blocklist entries ${left.join(', ')}.`,
    );
  },
};

export const removeTaint: UnfenceRule = {
  id: 'remove-taint',
  contract:
    "SAFETY.md rule 6: remove exactly the fencer's taint, by read-modify-write; other taints untouched",
  check: (ctx) => {
    const { node, taints } = ctx;
    if (node === null || node.fenceRecord === null || taints?.ours == null) return NotApplicable;
    return act(
      Phase.Unfence,
      {
        kind: ActionKind.RemoveTaint,
        node: node.name,
        expectedResourceVersion: node.resourceVersion,
        taint: taints.ours,
        fenceRunId: node.fenceRecord.runId,
      },
      `Node ${node.name} is Ready after a power cycle; removing the fencer's out-of-service taint.`,
    );
  },
};
