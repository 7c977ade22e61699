/**
 * The built `fencer` as installed: its help, version and plugin name, the Node.js it runs on, what
 * `--help` loads (nothing but the command line itself), and its shell completion run in a real bash.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join, relative } from 'node:path';
import type { Metafile } from 'esbuild';
import { beforeAll, describe, expect, it } from 'vitest';
import { unsupportedNode } from '../../bin/node-version.js';
import { bundleCli } from '../../cli/bundle.js';
import { REPO_ROOT } from '../../lab/paths.js';
import { FENCER, linesOf, runCli } from '../support/run-cli.js';

const { version } = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string };

describe('fencer --help and --version', () => {
  it('lists every command and the exit codes', async () => {
    const { code, stdout, stderr } = await runCli(['--help']);
    expect([code, stderr]).toEqual([0, '']);
    for (const command of ['fence', 'unfence', 'status', 'sweep', 'diagnose', 'demo', 'completion']) {
      expect(stdout).toMatch(new RegExp(`^  ${command} `, 'm'));
    }
    expect(stdout).toContain(' 9  RBAC denies a permission the command needs (see deploy/rbac.yaml)');
  });

  it("shows the global options in a command's help", async () => {
    const { stdout } = await runCli(['fence', '--help']);
    expect(stdout).toMatch(/Global Options:[\s\S]*--kubeconfig <path>[\s\S]*--context <name>/);
    expect(stdout).toContain('--timeout <duration>');
  });

  it('prints its version', async () => {
    expect((await runCli(['--version'])).stdout).toBe(`fencer ${version}\n`);
  });

  it('calls itself `kubectl fencer` when run as the kubectl-fencer plugin', async () => {
    const plugin = join(REPO_ROOT, 'bin', 'kubectl-fencer');
    const { stdout } = await runCli(['--help'], { command: [process.execPath, plugin] });
    expect(stdout).toMatch(/^Usage: kubectl fencer \[options\] \[command\]/);
  });
});

/** The first `node` on PATH that is not the project's pinned one: the machine's own. */
function machineNode(): string | null {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    const candidate = join(dir, 'node');
    if (!dir.includes('node_modules') && existsSync(candidate)) return candidate;
  }
  return null;
}

describe('fencer demo --storage', () => {
  it('documents the RBD replay in --help: the choices and what rbd replays', async () => {
    const { code, stdout } = await runCli(['demo', '--help']);

    expect(code).toBe(0);
    // Commander wraps the description: any run of blanks may be a line break.
    expect(stdout.replace(/\s+/g, ' ')).toMatch(
      /--storage <kind> .*still being used`, cured by a storage fence.* \(choices: "disk", "rbd", default: "disk"\)/,
    );
  });

  it.each([
    [['--provider', 'alibaba'], /drop --provider alibaba/],
    [['--manual'], /the cure with the fencer only/],
    [['--timeline-out', 'x.html'], /--timeline-out draws the cloud-disk incident only/],
  ])('refuses %j with rbd before starting any lab (usage, exit 2)', async (more, message) => {
    const { code, stdout, stderr } = await runCli(['demo', '--storage', 'rbd', ...more]);

    expect(code).toBe(2);
    expect(stderr).toMatch(message);
    expect(stdout).not.toContain('starting the lab');
  });

  it('refuses a storage it does not know', async () => {
    const { code, stderr } = await runCli(['demo', '--storage', 'nfs']);

    expect(code).toBe(2);
    expect(stderr).toMatch(/Allowed choices are disk, rbd/);
  });
});

describe('the Node.js it runs on', () => {
  it("runs on the machine's own Node.js, or turns it away in one line", async () => {
    const node = machineNode() ?? process.execPath;
    const nodeVersion = execFileSync(node, ['-p', 'process.versions.node'], { encoding: 'utf8' }).trim();
    const { code, stdout, stderr } = await runCli(['--version'], { command: [node, FENCER] });

    const problem = unsupportedNode(nodeVersion);
    if (problem) expect([code, stderr]).toEqual([11, `fencer: ${problem}\n`]);
    else expect([code, stdout, stderr]).toEqual([0, `fencer ${version}\n`, '']);
  });

  it('turns an older Node.js away in one line, with exit code 11', async () => {
    // No older Node.js is installed here: the preload makes this one report 18.20.4 before bin/fencer.js runs.
    const pretend = 'data:text/javascript,Object.defineProperty(process.versions,"node",{value:"18.20.4"})';
    const { code, stdout, stderr } = await runCli(['status'], {
      command: [process.execPath, '--import', pretend, FENCER],
    });

    expect(code).toBe(11);
    expect(stdout).toBe('');
    expect(linesOf(stderr)).toEqual([
      'fencer: needs Node.js 20.19 or newer (22 or 24 recommended); this is Node.js 18.20.4: install a newer one (https://nodejs.org) and run fencer again',
    ]);
  });
});

describe('what each command loads', () => {
  let metafile: Metafile;
  beforeAll(async () => {
    metafile = await bundleCli(REPO_ROOT, mkdtempSync(join(tmpdir(), 'fencer-bundle-')));
  });

  /** The source files in the outputs `entry` imports statically (what loads before any command runs). */
  const loadedWith = (entry: string): string[] => {
    const seen = new Set<string>();
    const stack = [entry];
    while (stack.length > 0) {
      const file = stack.pop() ?? '';
      if (seen.has(file)) continue;
      seen.add(file);
      for (const i of metafile.outputs[file]?.imports ?? [])
        if (i.kind === 'import-statement') stack.push(i.path);
    }
    return [...seen].flatMap((file) => Object.keys(metafile.outputs[file]?.inputs ?? {}));
  };
  const entryOf = () => Object.keys(metafile.outputs).find((f) => f.endsWith('/fencer.js')) ?? '';

  it('--help loads the command line only: no client, no use case, no lab', () => {
    const loaded = loadedWith(entryOf()).map((f) => relative(REPO_ROOT, join(REPO_ROOT, f)));
    const foreign = loaded.filter((f) => !f.startsWith('cli/') && !f.includes('node_modules/commander/'));
    // Two small pure modules: the sweep classes (for --help's text) and the bounded schema-error line.
    expect(foreign.sort()).toEqual(['lib/config/issues.ts', 'lib/domain/sweep/classes.ts']);
  });

  it('keeps the lab out of every command but demo', () => {
    // Each module a command imports when it runs is an entry of its own; only demo's are lab modules.
    const lazy = Object.entries(metafile.outputs).filter(([, o]) => o.entryPoint !== undefined);
    const labEntries = lazy.map(([, o]) => o.entryPoint).filter((e) => e?.startsWith('lab/'));
    expect(labEntries.sort()).toEqual([
      'lab/lab.ts',
      'lab/paths.ts',
      'lab/scenarios/rbd-replay.ts',
      'lab/scenarios/replay.ts',
      'lab/timeline-picture.ts',
    ]);
    const leaks = lazy
      .filter(([, o]) => !o.entryPoint?.startsWith('lab/'))
      .flatMap(([file, o]) =>
        loadedWith(file)
          .filter((i) => i.startsWith('lab/'))
          .map((i) => `${o.entryPoint} → ${i}`),
      );
    expect(leaks).toEqual([]);
  });
});

/** Runs the bash completion function for `words` (the last one being completed) in a real bash. */
function complete(words: string[]): string[] {
  const script = `source <("${process.execPath}" "${FENCER}" completion bash)
COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _fencer; printf '%s\\n' "\${COMPREPLY[@]}"`;
  return execFileSync('bash', ['-c', script], { encoding: 'utf8', env: { PATH: process.env.PATH } })
    .split('\n')
    .filter(Boolean);
}

describe('fencer completion bash', () => {
  it.each([
    [['fencer', 'fe'], ['fence']],
    [['fencer', 'un'], ['unfence']],
    [['fencer', 'fence', '--dry'], ['--dry-run']],
    [['fencer', 'fence', '--str'], ['--strategy']],
    [
      ['fencer', 'fence', '--strategy', ''],
      ['auto', 'out-of-service', 'legacy'],
    ],
    [
      ['fencer', '-o', ''],
      ['text', 'json', 'yaml'],
    ],
    [['fencer', 'status', '--cont'], ['--context']],
    [
      ['fencer', 'diagnose', ''],
      ['pod', 'pvc', 'node'],
    ],
    [
      ['fencer', 'completion', ''],
      ['bash', 'zsh'],
    ],
    [['fencer', '--kube'], ['--kubeconfig']],
  ])('completes %j', (words, expected) => {
    expect(complete(words)).toEqual(expected);
  });
});

describe('fencer completion zsh', () => {
  it("loads in a real zsh, registers for fencer, and answers through zsh's bash completion layer", () => {
    // zsh's own completion system filters the answers by what was typed; this calls the function directly.
    const script = `source <("${process.execPath}" "${FENCER}" completion zsh)
print -r -- "\${_comps[fencer]}"
setopt ksharrays
COMP_WORDS=(fencer fence --strategy ''); COMP_CWORD=3; _fencer; print -r -- "\${COMPREPLY[@]}"
COMP_WORDS=(fencer fe); COMP_CWORD=1; _fencer; print -r -- "\${COMPREPLY[@]}"`;
    const [registered, strategies, commands] = execFileSync('zsh', ['-fc', script], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH, HOME: mkdtempSync(join(tmpdir(), 'zsh-home-')) },
    }).split('\n');
    expect(registered).toBe('_bash_complete -F _fencer');
    expect(strategies).toBe('auto out-of-service legacy');
    expect(commands?.split(' ')).toContain('fence');
  });
});
