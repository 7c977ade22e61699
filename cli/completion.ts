/**
 * Shell completion scripts written from the command tree itself, so they never drift from it:
 * subcommands, each one's flags plus the global flags, the values of flags with fixed choices,
 * files for file flags, kubeconfig contexts for `--context` and node names (through kubectl, when
 * it is installed) for the node argument. Static: pressing TAB never starts Node.js.
 */
import type { Command, Option } from 'commander';

const FILE_FLAGS = ['--kubeconfig', '--timeline-out'];
/** Commands whose first argument is a node name. */
const NODE_COMMANDS = ['fence', 'unfence', 'status'];

const flagsOf = (options: readonly Option[]): string[] =>
  options.flatMap((o) => [o.short, o.long].filter((f): f is string => Boolean(f)));

const takesValue = (o: Option): boolean => o.required || o.optional;

const words = (list: readonly string[]): string => list.join(' ');

/** `case` arms completing the value of each flag that takes one (a value nobody can guess completes nothing). */
function valueArms(options: readonly Option[]): string[] {
  const arms = new Map<string, string>();
  for (const o of options.filter(takesValue)) {
    const pattern = flagsOf([o]).join('|');
    if (o.argChoices)
      arms.set(pattern, `COMPREPLY=($(compgen -W "${words(o.argChoices)}" -- "$cur")); return`);
    else if (o.long && FILE_FLAGS.includes(o.long))
      arms.set(pattern, 'COMPREPLY=($(compgen -f -- "$cur")); return');
    else if (o.long === '--context')
      arms.set(
        pattern,
        'COMPREPLY=($(compgen -W "$(kubectl config get-contexts -o name 2>/dev/null)" -- "$cur")); return',
      );
    else arms.set(pattern, 'return');
  }
  return [...arms].map(([pattern, body]) => `    ${pattern}) ${body};;`);
}

/** The bash script (zsh runs the same through bashcompinit). */
export function bashCompletion(program: Command): string {
  const globals = program.options;
  const commands = program.commands;
  const allOptions = [...globals, ...commands.flatMap((c) => c.options)];
  const commandArms = commands.map((c) => {
    const flags = words([...flagsOf(c.options), ...flagsOf(globals)]);
    const choices = c.registeredArguments[0]?.argChoices;
    const positional = choices
      ? `COMPREPLY=($(compgen -W "${words(choices)}" -- "$cur"))`
      : NODE_COMMANDS.includes(c.name())
        ? 'COMPREPLY=($(compgen -W "$(_fencer_nodes)" -- "$cur"))'
        : ':';
    return `    ${c.name()})
      if [[ "$cur" == -* ]]; then COMPREPLY=($(compgen -W "${flags}" -- "$cur")); else ${positional}; fi;;`;
  });
  return `# ${program.name()} completion for bash. Load it with: source <(fencer completion bash)
_fencer_nodes() {
  command -v kubectl >/dev/null 2>&1 && kubectl get nodes -o name 2>/dev/null | sed 's|^node/||'
}
_fencer() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="\${COMP_WORDS[COMP_CWORD-1]}" cmd="" i
  for ((i = 1; i < COMP_CWORD; i++)); do
    case "\${COMP_WORDS[i]}" in
      ${commands.map((c) => c.name()).join('|')}) cmd="\${COMP_WORDS[i]}"; break;;
    esac
  done
  case "$prev" in
${valueArms(allOptions).join('\n')}
  esac
  case "$cmd" in
    "") COMPREPLY=($(compgen -W "${words([...commands.map((c) => c.name()), ...flagsOf(globals), '--help', '--version'])}" -- "$cur"));;
${commandArms.join('\n')}
  esac
}
complete -F _fencer fencer
`;
}

/** The zsh script: zsh's bash-completion layer runs the bash function unchanged. */
export function zshCompletion(program: Command): string {
  return `# ${program.name()} completion for zsh. Load it with: source <(fencer completion zsh)
autoload -U +X compinit && { (( $+functions[compdef] )) || compinit -u; }
autoload -U +X bashcompinit && bashcompinit
${bashCompletion(program).split('\n').slice(1).join('\n')}`;
}
