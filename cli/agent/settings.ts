/**
 * The agent's options, read into the settings of one call and checked as `fencer fence` checks its
 * flags (the same region, account and duration parsers, the same node and cluster name rules and limit
 * bounds of lib/config/fence-request.ts), so that a bad value is refused before anything is contacted.
 * Which options an action needs is checked here too: `validate-all` is exactly this check.
 */
import { InvalidArgumentError } from 'commander';
import type * as z from 'zod';
import { clusterName, fenceLimitsSchema, nodeName } from '../../lib/config/fence-request.js';
import { awsAccountId, awsRegion, duration, int } from '../options.js';
import { UsageError } from '../usage.js';
import type { RawOptions } from './input.js';
import { ACTIONS, type AgentAction, PARAMETERS } from './parameters.js';

/** The limits of a fence run, in lib/config/fence-request.ts's names. */
export interface AgentLimits {
  readonly leaseGraceSeconds: number;
  readonly powerOffDeadlineSeconds: number;
  readonly drainDeadlineSeconds: number;
  readonly maxUnhealthyNodes: number;
  readonly maxUnhealthyFraction: number;
}

export interface AgentSettings {
  readonly action: AgentAction;
  /** The node to act on (`plug`, or its old name `port`). */
  readonly plug?: string;
  readonly cluster?: string;
  readonly region?: string;
  readonly accountId?: string;
  readonly kubeconfig?: string;
  readonly context?: string;
  readonly timeoutSeconds: number;
  readonly delaySeconds: number;
  readonly separator: string;
  readonly verbose: boolean;
  readonly limits: AgentLimits;
}

/** The environment the agent reads its defaults from, as the other commands do. */
export interface AgentEnv {
  readonly FENCER_CLUSTER?: string;
  readonly AWS_REGION?: string;
  readonly ALIBABA_CLOUD_REGION?: string;
}

const DEFAULTS = new Map(PARAMETERS.flatMap((p) => (p.default === undefined ? [] : [[p.name, p.default]])));

/** A value through one of the CLI's own parsers; their complaint, named by the agent's option. */
function parsed<T>(name: string, value: string, parse: (text: string) => T): T {
  try {
    return parse(value);
  } catch (error) {
    if (error instanceof InvalidArgumentError) throw new UsageError(`${name} ${value}: ${error.message}`);
    throw error;
  }
}

/** A value through one field of the fence request's schema: the same names and bounds as `fencer fence`. */
function checked<T>(name: string, value: unknown, schema: z.ZodType<T>): T {
  const result = schema.safeParse(value);
  if (!result.success) throw new UsageError(`${name} ${String(value)}: ${result.error.issues[0]?.message}`);
  return result.data;
}

function actionOf(raw: RawOptions): AgentAction {
  const given = raw.get('action')?.trim().toLowerCase();
  if (given === undefined || given === '')
    throw new UsageError(
      `action is required (one of ${ACTIONS.join(', ')}): --action=status, or action=status on stdin`,
    );
  // `meta-data` is OCF's spelling, which fencing.py accepts too.
  const action = given === 'meta-data' ? 'metadata' : given;
  if (!(ACTIONS as readonly string[]).includes(action))
    throw new UsageError(`unknown action "${given}" (one of ${ACTIONS.join(', ')})`);
  return action as AgentAction;
}

const shape = fenceLimitsSchema.shape;

function limitsOf(value: (name: string) => string): AgentLimits {
  const seconds = (name: string) => parsed(name, value(name), duration(name));
  const fraction = Number(value('max_unhealthy_fraction'));
  return {
    leaseGraceSeconds: checked('lease_grace', seconds('lease_grace'), shape.leaseGraceSeconds),
    powerOffDeadlineSeconds: checked(
      'power_timeout',
      seconds('power_timeout'),
      shape.powerOffDeadlineSeconds,
    ),
    drainDeadlineSeconds: checked('drain_timeout', seconds('drain_timeout'), shape.drainDeadlineSeconds),
    maxUnhealthyNodes: checked(
      'max_unhealthy',
      parsed('max_unhealthy', value('max_unhealthy'), int('max_unhealthy')),
      shape.maxUnhealthyNodes,
    ),
    maxUnhealthyFraction: checked('max_unhealthy_fraction', fraction, shape.maxUnhealthyFraction),
  };
}

/** Reads every option into the call's settings; throws a UsageError naming the first bad one. */
export function agentSettings(raw: RawOptions, env: AgentEnv): AgentSettings {
  const action = actionOf(raw);
  const value = (name: string): string => raw.get(name) ?? DEFAULTS.get(name) ?? '';
  const optional = (name: string): string | undefined => raw.get(name);
  const plug = optional('plug');
  if (plug !== undefined && plug.trim() === '')
    throw new UsageError('plug is empty: name the node to act on');
  const cluster = optional('cluster') ?? env.FENCER_CLUSTER;
  const region = optional('region') ?? env.AWS_REGION;
  const accountId = optional('account_id');
  const timeoutSeconds = parsed('timeout', value('timeout'), duration('timeout'));
  if (timeoutSeconds < 1) throw new UsageError('timeout 0: must be at least 1 second');
  const separator = value('separator');
  if (separator === '') throw new UsageError('separator is empty');
  const context = optional('context');
  const kubeconfig = optional('kubeconfig');
  return {
    action,
    ...(plug !== undefined ? { plug: checked('plug', plug, nodeName) } : {}),
    ...(cluster ? { cluster: checked('cluster', cluster, clusterName) } : {}),
    ...(region ? { region: parsed('region', region, awsRegion) } : {}),
    ...(accountId !== undefined ? { accountId: parsed('account_id', accountId, awsAccountId) } : {}),
    ...(kubeconfig ? { kubeconfig } : {}),
    ...(context ? { context } : {}),
    timeoutSeconds,
    delaySeconds: parsed('delay', value('delay'), duration('delay')),
    separator,
    verbose: value('verbose') === 'true',
    limits: limitsOf(value),
  };
}

/** The actions that act on one node, and those that read the cloud. */
const NEEDS_PLUG: ReadonlySet<AgentAction> = new Set(['off', 'reboot', 'on', 'status']);
const NEEDS_CLUSTER: ReadonlySet<AgentAction> = new Set(['off', 'reboot', 'status', 'validate-all']);
const NEEDS_CLOUD: ReadonlySet<AgentAction> = new Set([
  'off',
  'reboot',
  'status',
  'list',
  'list-status',
  'monitor',
  'validate-all',
]);

/** What the action needs that the options do not give; nothing is contacted to find out. */
export function requireForAction(settings: AgentSettings, env: AgentEnv): void {
  const { action } = settings;
  if (NEEDS_PLUG.has(action) && settings.plug === undefined)
    throw new UsageError(`${action} needs the node: plug=NODE on stdin, or --plug=NODE`);
  if (NEEDS_CLUSTER.has(action) && settings.cluster === undefined)
    throw new UsageError(`${action} needs the cluster: cluster=NAME, --cluster=NAME, or FENCER_CLUSTER`);
  if (NEEDS_CLOUD.has(action) && settings.region === undefined && !env.ALIBABA_CLOUD_REGION)
    throw new UsageError(
      `${action} needs the cloud: region=REGION, --region=REGION or AWS_REGION; for Alibaba Cloud ALIBABA_CLOUD_REGION`,
    );
}
