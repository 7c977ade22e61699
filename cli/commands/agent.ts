import type { Command, CommanderError } from 'commander';
import { AgentExit } from '../agent/exit.js';
import { AGENT_NAME, commandLineForm, PARAMETERS } from '../agent/parameters.js';

/** Words of `text` in lines of at most `width` characters, every line after the first indented. */
function wrap(text: string, width: number, indent: string): string {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line && line.length + word.length + 1 > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  return [...lines, line].join(`\n${indent}`);
}

const OPTIONS = PARAMETERS.map((p) => {
  const fallback = p.default === undefined ? '' : ` [default ${p.default}]`;
  return `  ${commandLineForm(p)}\n      ${wrap(`${p.shortdesc}${fallback}`, 94, '      ')}`;
}).join('\n');

const HELP = `
The fence-agents protocol (as fence_aws speaks it) over this fencer's own proofs, so that Pacemaker
and medik8s Fence Agents Remediation can call kube-fencer where they call a fence agent. Options come
as name=value lines on stdin (Pacemaker), or as --name=value arguments (FAR, a shell); stdin is read
when the arguments name no action. The plug (or port) is the Kubernetes node name.

Actions:
  off           fence the node exactly as fencer fence does (every refusal of fence applies); exit 0
                once the machine is proven off, the node tainted out-of-service and its volumes freed
  reboot        off; the machine is not powered on again (kube-fencer never powers a machine on)
  on            refused (exit 1): start the machine through its provider, then fencer unfence NODE
  status        the machine's power as its provider reports it: exit 0 on, 2 off, 1 unknown or error
  list          every node as node,instance-id; list-status adds ON, OFF or UNKNOWN
  monitor       exit 0 when the API server and the cloud answer for every machine, else 1
  metadata      the agent's description in the fence-agents XML format (name ${AGENT_NAME})
  validate-all  check the options only: exit 0 or 1

Agent options (name on stdin: the long name with _ for -, e.g. power_timeout=300):
${OPTIONS}

Exit codes (the fence-agents protocol's, not the table of fencer --help):
  0  done (status: the machine is on)   1  not done: bad input, refused, failed, unknown   2  status: off

Examples:
  fencer agent --action=status --plug=node-a --cluster=prod --region=eu-west-1
  printf 'action=off\\nplug=node-a\\ncluster=prod\\nregion=eu-west-1\\n' | fencer agent
  fencer agent -o metadata`;

/** Commander's own ending of a call, which main.ts turns into an exit code; help ends it too. */
const HELP_CODES = new Set(['commander.helpDisplayed', 'commander.help', 'commander.version']);

/**
 * The agent parses its own arguments: the protocol's `-o off` and `-n node-a` are not the program's
 * `--output` and `--namespace`. Run as `fencer agent ...`, the program reads no option after `agent`,
 * and a problem Commander itself finds exits 1, as every failure of the agent does (the protocol reads
 * 2 as "off").
 */
function speakAgentProtocol(program: Command): void {
  if (process.argv[2] !== 'agent') return;
  program.enablePositionalOptions().exitOverride((error: CommanderError) => {
    if (HELP_CODES.has(error.code)) throw error;
    process.exit(AgentExit.Error);
  });
}

export function registerAgent(program: Command): void {
  speakAgentProtocol(program);
  program
    .command('agent')
    .description(
      'answer the fence-agents protocol (Pacemaker, medik8s FAR): off, reboot, status, list, monitor, metadata',
    )
    .usage('[--action=ACTION --plug=NODE ...] (or name=value lines on stdin)')
    // Its options are its own (below), not the program's: the global ones would mislead here.
    .configureHelp({ showGlobalOptions: false })
    .allowUnknownOption()
    .allowExcessArguments()
    .addHelpText('after', HELP)
    .action(async (_options: unknown, self: Command) => {
      const { runAgent } = await import('../agent/run.js');
      process.exitCode = await runAgent(self.args, () => process.stdin, process.env);
    });
}
