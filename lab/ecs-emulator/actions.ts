/**
 * The ECS API actions the fencer, the lab's CSI driver and the lab itself call, with ECS's parameters,
 * answers and error codes. Each takes the decoded parameters and returns the answer's body (the server
 * adds the RequestId).
 */
import { EcsApiError, invalid, notFound } from './errors.js';
import type { Instance } from './model.js';
import { bool, jsonList, type Params, page, repeatList, required, tagFilters } from './params.js';
import { renderDisk, renderInstance } from './render.js';
import type { EcsWorld } from './world.js';

type Body = Record<string, unknown>;
export type Action = (world: EcsWorld, params: Params) => Body;

const inRegion = (world: EcsWorld, params: Params): boolean => required(params, 'RegionId') === world.region;

const stoppedModeOf = (params: Params): 'KeepCharging' | 'StopCharging' | undefined => {
  const mode = params.StoppedMode;
  if (mode === undefined) return undefined;
  if (mode !== 'KeepCharging' && mode !== 'StopCharging')
    throw invalid('StoppedMode', 'expected KeepCharging or StopCharging');
  return mode;
};

const matchesTags = (tags: Map<string, string>, params: Params): boolean =>
  tagFilters(params).every(
    ([key, value]) => tags.has(key) && (value === undefined || tags.get(key) === value),
  );

const describeInstances: Action = (world, params) => {
  const ids = jsonList(params, 'InstanceIds', 100);
  const candidates = inRegion(world, params) ? [...world.instances.values()] : [];
  const matching = candidates.filter(
    (i) =>
      (ids === undefined || ids.includes(i.instanceId)) &&
      (params.Status === undefined || i.status === params.Status) &&
      (params.ZoneId === undefined || i.zoneId === params.ZoneId) &&
      matchesTags(i.tags, params),
  );
  const { items, fields } = page(matching, params, { maxResults: [1, 100, 10], pageSize: [1, 100, 10] });
  return { ...fields, Instances: { Instance: items.map(renderInstance) } };
};

const describeInstanceAttribute: Action = (world, params) => {
  const {
    Tags: _tags,
    NetworkInterfaces: _enis,
    ...attributes
  } = renderInstance(world.instance(required(params, 'InstanceId')));
  return attributes;
};

const describeInstanceStatus: Action = (world, params) => {
  const ids = repeatList(params, 'InstanceId');
  if (ids.length > 100) throw invalid('InstanceId', 'at most 100 ids');
  const candidates = inRegion(world, params) ? [...world.instances.values()] : [];
  const matching = candidates.filter(
    (i) =>
      (ids.length === 0 || ids.includes(i.instanceId)) &&
      (params.ZoneId === undefined || i.zoneId === params.ZoneId),
  );
  const { items, fields } = page(matching, params, { maxResults: [1, 50, 10], pageSize: [1, 50, 10] });
  return {
    ...fields,
    InstanceStatuses: { InstanceStatus: items.map((i) => ({ InstanceId: i.instanceId, Status: i.status })) },
  };
};

const dryRunPassed = (code: string) =>
  new EcsApiError(400, code, 'Request validation has been passed with DryRun flag set.');

const stopInstance: Action = (world, params) => {
  const id = required(params, 'InstanceId');
  const dryRun = bool(params, 'DryRun') === true;
  world.stop(id, stoppedModeOf(params), dryRun);
  if (dryRun) throw dryRunPassed('DryRunOperation');
  return {};
};

/** StopInstances and StartInstances: `AllTogether` fails whole, `SuccessFirst` answers per instance. */
const batch =
  (act: (world: EcsWorld, id: string, params: Params, dryRun: boolean) => Instance['status']): Action =>
  (world, params) => {
    const here = inRegion(world, params);
    const ids = repeatList(params, 'InstanceId');
    // Another region's endpoint knows none of these instances.
    if (!here) throw notFound(ids[0] ?? '');
    if (ids.length === 0) throw invalid('InstanceId', 'at least one id is required');
    if (ids.length > 100) throw invalid('InstanceId', 'at most 100 ids');
    const mode = params.BatchOptimization ?? 'AllTogether';
    if (mode !== 'AllTogether' && mode !== 'SuccessFirst')
      throw invalid('BatchOptimization', 'expected AllTogether or SuccessFirst');
    const dryRun = bool(params, 'DryRun') === true;
    if (mode === 'AllTogether' || dryRun) {
      // All or nothing: every instance is checked before any changes.
      for (const id of ids) act(world, id, params, true);
      if (dryRun) throw dryRunPassed('DRYRUN.SUCCESS');
    }
    const responses = ids.map((id) => {
      try {
        const previous = act(world, id, params, false);
        const current = world.instance(id).status;
        return {
          InstanceId: id,
          Code: '200',
          Message: 'success',
          PreviousStatus: previous,
          CurrentStatus: current,
        };
      } catch (error) {
        if (!(error instanceof EcsApiError)) throw error;
        return { InstanceId: id, Code: error.code, Message: error.message };
      }
    });
    return { InstanceResponses: { InstanceResponse: responses } };
  };

const stopInstances = batch((world, id, params, dryRun) => world.stop(id, stoppedModeOf(params), dryRun));
const startInstances = batch((world, id, _params, dryRun) => {
  const status = world.instance(id).status;
  if (dryRun) {
    if (status !== 'Stopped')
      throw new EcsApiError(
        403,
        'IncorrectInstanceStatus',
        `The current status of the resource does not support this operation (${id} is ${status}).`,
      );
    return status;
  }
  return world.start(id);
});

const startInstance: Action = (world, params) => {
  world.start(required(params, 'InstanceId'));
  return {};
};

const deleteInstance: Action = (world, params) => {
  const id = required(params, 'InstanceId');
  const instance = world.instance(id);
  if (instance.status !== 'Stopped' && bool(params, 'Force') !== true) {
    throw new EcsApiError(
      403,
      'IncorrectInstanceStatus',
      `The current status of the resource does not support this operation (${id} is ${instance.status}).`,
    );
  }
  world.release(id);
  return {};
};

const createDisk: Action = (world, params) => {
  inRegion(world, params);
  const size = Number(required(params, 'Size'));
  if (!Number.isInteger(size) || size < 1 || size > 65536) throw invalid('Size', 'expected 1 to 65536 GiB');
  const tags = Object.fromEntries(tagFilters(params).map(([k, v]) => [k, v ?? '']));
  const disk = world.createDisk({
    zoneId: required(params, 'ZoneId'),
    size,
    category: params.DiskCategory ?? 'cloud_essd',
    diskName: params.DiskName ?? '',
    multiAttach: params.MultiAttach === 'Enabled',
    tags,
  });
  return { DiskId: disk.diskId, OrderId: '' };
};

const attachDisk: Action = (world, params) => {
  world.attach(required(params, 'DiskId'), required(params, 'InstanceId'));
  return {};
};

const detachDisk: Action = (world, params) => {
  world.detach(required(params, 'DiskId'), required(params, 'InstanceId'));
  return {};
};

const describeDisks: Action = (world, params) => {
  const ids = jsonList(params, 'DiskIds', 100);
  const type = params.DiskType ?? 'all';
  const candidates = inRegion(world, params) ? [...world.disks.values()] : [];
  const matching = candidates.filter(
    (d) =>
      (ids === undefined || ids.includes(d.diskId)) &&
      (params.InstanceId === undefined || d.attachments.some((a) => a.instanceId === params.InstanceId)) &&
      (params.Status === undefined || params.Status === 'All' || d.status === params.Status) &&
      (params.ZoneId === undefined || d.zoneId === params.ZoneId) &&
      (type === 'all' || d.type === type) &&
      matchesTags(d.tags, params),
  );
  const { items, fields } = page(matching, params, { maxResults: [10, 500, 500], pageSize: [1, 100, 10] });
  return { ...fields, Disks: { Disk: items.map(renderDisk) } };
};

/** Every action the emulator answers; anything else is `InvalidAction.NotFound`. */
export const ACTIONS: Readonly<Record<string, Action>> = {
  DescribeInstances: describeInstances,
  DescribeInstanceAttribute: describeInstanceAttribute,
  DescribeInstanceStatus: describeInstanceStatus,
  StopInstance: stopInstance,
  StopInstances: stopInstances,
  StartInstance: startInstance,
  StartInstances: startInstances,
  DeleteInstance: deleteInstance,
  CreateDisk: createDisk,
  AttachDisk: attachDisk,
  DetachDisk: detachDisk,
  DescribeDisks: describeDisks,
};
