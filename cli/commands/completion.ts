import { Argument, type Command } from 'commander';

const HELP = `
Load it in the current shell:
  source <(fencer completion bash)        # bash (needs the bash-completion package)
  source <(fencer completion zsh)         # zsh
or for every new shell:
  fencer completion bash > ~/.local/share/bash-completion/completions/fencer
  echo 'source <(fencer completion zsh)' >> ~/.zshrc`;

/** `fencer completion bash|zsh`: prints the shell completion script. */
export function registerCompletion(program: Command): void {
  program
    .command('completion')
    .addArgument(new Argument('<shell>', 'the shell').choices(['bash', 'zsh']))
    .description('print the shell completion script (subcommands, flags, their values, node names)')
    .addHelpText('after', HELP)
    .action(async (shell: 'bash' | 'zsh') => {
      const { bashCompletion, zshCompletion } = await import('../completion.js');
      process.stdout.write(shell === 'bash' ? bashCompletion(program) : zshCompletion(program));
    });
}
