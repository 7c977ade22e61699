/** The Ceph command-line tools, run against one lab cluster (its ceph.conf, the admin key). */
import { execFile } from 'node:child_process';

/** A Ceph tool that exited non-zero: its exit code and what it printed on stderr. */
export class CephCliError extends Error {
  override readonly name = 'CephCliError';
  readonly exitCode: number | undefined;
  readonly stderr: string;

  constructor(command: string, exitCode: number | undefined, stderr: string) {
    super(`${command} failed (exit ${exitCode ?? '?'}): ${stderr.trim().split('\n').slice(-3).join(' | ')}`);
    this.exitCode = exitCode;
    this.stderr = stderr;
  }
}

export interface RunOptions {
  readonly input?: string;
  /** Run inside a node's network namespace (`ip netns exec`). */
  readonly netns?: string;
  readonly timeoutMs?: number;
}

/** Runs a tool with `CEPH_CONF` set; resolves with stdout. */
export function runTool(
  conf: string,
  tool: string,
  args: readonly string[],
  options: RunOptions = {},
): Promise<string> {
  const [command, argv] = options.netns
    ? ['ip', ['netns', 'exec', options.netns, tool, ...args]]
    : [tool, [...args]];
  return new Promise((resolve, reject) => {
    const child = execFile(
      command,
      argv,
      {
        encoding: 'utf8',
        env: { ...process.env, CEPH_CONF: conf },
        timeout: options.timeoutMs ?? 30_000,
        maxBuffer: 16 * 1024 * 1024,
      },
      (error, stdout, stderr) => {
        if (!error) resolve(stdout);
        else {
          const code = typeof error.code === 'number' ? error.code : undefined;
          reject(new CephCliError(`${tool} ${args.join(' ')}`, code, stderr || error.message));
        }
      },
    );
    if (options.input !== undefined) child.stdin?.end(options.input);
  });
}

/** `ceph …` as client.admin. */
export const ceph = (conf: string, args: readonly string[], options?: RunOptions): Promise<string> =>
  runTool(conf, 'ceph', args, options);

/** `rbd …` (as client.admin unless `--id` says otherwise). */
export const rbd = (conf: string, args: readonly string[], options?: RunOptions): Promise<string> =>
  runTool(conf, 'rbd', args, options);
