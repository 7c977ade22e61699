/**
 * One call of the agent: read the options, check them for the action, then answer it. Every failure,
 * whatever its kind (bad options, kubeconfig, credentials, RBAC, an API down, a refused fence), is one
 * line on stderr and exit 1 (cli/agent/exit.ts); nothing is contacted before the options are known good.
 */
import type { NodeMachine, PlugPower } from '../../lib/app/agent/node-machines.js';
import { reportFatal } from '../fatal.js';
import { AgentExit } from './exit.js';
import { connectionOf, fenceOff } from './fence-off.js';
import { readAgentInput } from './input.js';
import { agentMetadata } from './metadata.js';
import type { AgentAction } from './parameters.js';
import { type AgentEnv, type AgentSettings, agentSettings, requireForAction } from './settings.js';

const print = (line: string) => process.stdout.write(`${line}\n`);

/** The dependencies of a reading action: the API server and the cloud, checked as `fencer status` is. */
async function readingDeps(settings: AgentSettings) {
  const { connect } = await import('../access.js');
  const { deps } = await connect(connectionOf(settings), {
    use: { command: 'status', timeline: false },
    cloud: true,
  });
  return deps;
}

async function status(settings: AgentSettings, node: string, cluster: string): Promise<number> {
  const { nodePower } = await import('../../lib/app/agent/node-machines.js');
  const power: PlugPower = await nodePower(await readingDeps(settings), node, cluster);
  if (power.kind === 'unknown') {
    process.stderr.write(`fencer: status ${node}: unknown: ${power.detail}\n`);
    return AgentExit.Error;
  }
  print(`Status: ${power.kind.toUpperCase()}`);
  return power.kind === 'off' ? AgentExit.Off : AgentExit.Ok;
}

const powerWord = (m: NodeMachine): string =>
  m.power?.kind === 'on' || m.power?.kind === 'off' ? m.power.kind.toUpperCase() : 'UNKNOWN';

/** `list`: node,instance-id; `list-status`: node,instance-id,ON|OFF|UNKNOWN; `monitor`: nothing. */
async function listing(settings: AgentSettings, action: AgentAction): Promise<number> {
  const { listNodeMachines } = await import('../../lib/app/agent/node-machines.js');
  const withPower = action !== 'list';
  const machines = await listNodeMachines(await readingDeps(settings), { withPower });
  if (action === 'monitor') {
    const faults = machines.flatMap((m) =>
      m.power?.kind === 'unknown' && m.power.fault ? [m.power.detail] : [],
    );
    if (faults.length === 0) return AgentExit.Ok;
    const more = faults.length > 1 ? ` (and ${faults.length - 1} more)` : '';
    process.stderr.write(`fencer: monitor: ${faults[0]}${more}\n`);
    return AgentExit.Error;
  }
  const sep = settings.separator;
  for (const m of machines) {
    const fields = [m.node, m.instanceId ?? '', ...(withPower ? [powerWord(m)] : [])];
    print(fields.join(sep));
  }
  return AgentExit.Ok;
}

/** `on`: never. kube-fencer does not power machines on (SAFETY.md): the provider or an operator does. */
function refuseOn(node: string): number {
  process.stderr.write(
    `fencer: on ${node} refused: kube-fencer never powers a machine on; start it through its provider, then run fencer unfence ${node}\n`,
  );
  return AgentExit.Error;
}

async function answer(settings: AgentSettings): Promise<number> {
  const { action, plug = '', cluster = '' } = settings;
  switch (action) {
    case 'metadata':
      process.stdout.write(agentMetadata());
      return AgentExit.Ok;
    case 'validate-all':
      return AgentExit.Ok;
    case 'on':
      return refuseOn(plug);
    case 'off':
      return fenceOff(settings, plug, cluster);
    case 'reboot': {
      const code = await fenceOff(settings, plug, cluster);
      if (code === AgentExit.Ok)
        print(
          `not powered on again: kube-fencer never powers a machine on (start it through its provider; fencer unfence ${plug} follows)`,
        );
      return code;
    }
    case 'status':
      return status(settings, plug, cluster);
    case 'list':
    case 'list-status':
    case 'monitor':
      return listing(settings, action);
  }
}

/** Runs one call: `args` are the agent's own arguments; `stdin` is opened only when they name no action. */
export async function runAgent(
  args: readonly string[],
  stdin: () => NodeJS.ReadStream | NodeJS.ReadableStream,
  env: AgentEnv,
): Promise<number> {
  let settings: AgentSettings | undefined;
  try {
    settings = agentSettings(await readAgentInput(args, stdin), env);
    if (settings.action !== 'metadata') requireForAction(settings, env);
    return await answer(settings);
  } catch (error) {
    reportFatal(error, { debug: settings?.verbose === true });
    return AgentExit.Error;
  }
}
