/**
 * Kubeconfig files as kubectl reads them, for the CLI: `--kubeconfig` alone, else every file of the
 * `KUBECONFIG` list (missing ones skipped), else `~/.kube/config`; merged so that the first file to
 * name a cluster, user or context wins, as does the first `current-context`; relative paths resolved
 * against the file that holds them. Every problem is a {@link KubeconfigError} naming the file.
 */
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, dirname, isAbsolute, join } from 'node:path';
import { load } from 'js-yaml';
import * as z from 'zod';
import { KubeconfigError } from '../../../domain/access-errors.js';

const clusterEntry = z.looseObject({
  server: z.string().optional(),
  'certificate-authority': z.string().optional(),
  'certificate-authority-data': z.string().optional(),
  'insecure-skip-tls-verify': z.boolean().optional(),
  'tls-server-name': z.string().optional(),
  'proxy-url': z.string().optional(),
});
const execEntry = z.looseObject({
  apiVersion: z.string().optional(),
  command: z.string().min(1),
  args: z.array(z.string()).nullish(),
  env: z.array(z.object({ name: z.string(), value: z.string() })).nullish(),
  installHint: z.string().optional(),
  provideClusterInfo: z.boolean().optional(),
  interactiveMode: z.string().optional(),
});
const userEntry = z.looseObject({
  token: z.string().optional(),
  tokenFile: z.string().optional(),
  'client-certificate': z.string().optional(),
  'client-certificate-data': z.string().optional(),
  'client-key': z.string().optional(),
  'client-key-data': z.string().optional(),
  username: z.string().optional(),
  password: z.string().optional(),
  exec: execEntry.optional(),
  'auth-provider': z.unknown().optional(),
});
const contextEntry = z.looseObject({
  cluster: z.string().min(1),
  user: z.string().optional(),
  namespace: z.string().optional(),
});
const kubeconfigFile = z.looseObject({
  'current-context': z.string().nullish(),
  clusters: z.array(z.looseObject({ name: z.string().min(1), cluster: clusterEntry })).nullish(),
  users: z.array(z.looseObject({ name: z.string().min(1), user: userEntry.nullish() })).nullish(),
  contexts: z.array(z.looseObject({ name: z.string().min(1), context: contextEntry })).nullish(),
});

export type ClusterEntry = z.infer<typeof clusterEntry>;
export type UserEntry = z.infer<typeof userEntry>;
export type ExecEntry = z.infer<typeof execEntry>;
type ContextEntry = z.infer<typeof contextEntry>;

/** Where to look, as kubectl's flags and environment say. */
export interface KubeconfigLookup {
  /** `--kubeconfig`: this file only; it must exist. */
  readonly path?: string;
  /** `--context`: else the merged `current-context`. */
  readonly context?: string;
  /** @default process.env.KUBECONFIG */
  readonly kubeconfigEnv?: string;
  /** @default os.homedir() */
  readonly home?: string;
}

/** One context, resolved: what the CLI connects with, and where it came from (for messages). */
export interface SelectedContext {
  readonly files: readonly string[];
  readonly context: string;
  /** The context's namespace, else `default` (as kubectl). */
  readonly namespace: string;
  readonly clusterName: string;
  readonly cluster: ClusterEntry;
  readonly userName: string;
  readonly user: UserEntry;
}

interface Merged {
  currentContext?: string;
  readonly clusters: Map<string, ClusterEntry>;
  readonly users: Map<string, UserEntry>;
  readonly contexts: Map<string, ContextEntry>;
}

const PATH_FIELDS = {
  cluster: ['certificate-authority'],
  user: ['client-certificate', 'client-key', 'tokenFile'],
} as const;

/** Relative paths in a file mean "next to this file" (kubectl's ResolveLocalPaths). */
function absolutize<T extends Record<string, unknown>>(entry: T, fields: readonly string[], dir: string): T {
  const out: Record<string, unknown> = { ...entry };
  for (const field of fields) {
    const value = out[field];
    if (typeof value === 'string' && value !== '' && !isAbsolute(value)) out[field] = join(dir, value);
  }
  const exec = out.exec as ExecEntry | undefined;
  // A plugin named by a relative path with a separator lives next to the kubeconfig; a bare name is on PATH.
  if (exec?.command.includes('/') && !isAbsolute(exec.command)) {
    out.exec = { ...exec, command: join(dir, exec.command) };
  }
  return out as T;
}

function readKubeconfig(path: string, skipMissing: boolean): z.infer<typeof kubeconfigFile> | null {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' && skipMissing) return null;
    if (code === 'ENOENT') throw new KubeconfigError('missing', `kubeconfig ${path} does not exist`);
    const why = code === 'EACCES' ? 'permission denied' : code === 'EISDIR' ? 'it is a folder' : code;
    throw new KubeconfigError('unreadable', `cannot read kubeconfig ${path}: ${why}`, { cause: error });
  }
  let doc: unknown;
  try {
    doc = load(text);
  } catch (error) {
    const yamlError = error as { reason?: string; mark?: { line: number } };
    const where = yamlError.mark ? ` at line ${yamlError.mark.line + 1}` : '';
    throw new KubeconfigError(
      'malformed',
      `kubeconfig ${path} is not valid YAML${where}: ${yamlError.reason ?? (error as Error).message}`,
      { cause: error },
    );
  }
  if (doc === undefined || doc === null) return {};
  const parsed = kubeconfigFile.safeParse(doc);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue?.path.join('.') || 'the document';
    throw new KubeconfigError(
      'malformed',
      `kubeconfig ${path} is not a kubeconfig: ${field}: ${issue?.message ?? 'unexpected shape'}`,
    );
  }
  return parsed.data;
}

function merge(files: readonly { path: string; config: z.infer<typeof kubeconfigFile> }[]): Merged {
  const merged: Merged = { clusters: new Map(), users: new Map(), contexts: new Map() };
  for (const { path, config } of files) {
    const dir = dirname(path);
    merged.currentContext ||= config['current-context'] ?? undefined;
    for (const c of config.clusters ?? []) {
      if (!merged.clusters.has(c.name))
        merged.clusters.set(c.name, absolutize(c.cluster, PATH_FIELDS.cluster, dir));
    }
    for (const u of config.users ?? []) {
      if (!merged.users.has(u.name))
        merged.users.set(u.name, absolutize(u.user ?? {}, PATH_FIELDS.user, dir));
    }
    for (const c of config.contexts ?? []) {
      if (!merged.contexts.has(c.name)) merged.contexts.set(c.name, c.context);
    }
  }
  return merged;
}

/** The files to read, in precedence order, and whether missing ones are skipped. */
function filesToRead(lookup: KubeconfigLookup): { paths: string[]; skipMissing: boolean; described: string } {
  if (lookup.path)
    return { paths: [lookup.path], skipMissing: false, described: `${lookup.path} does not exist` };
  const env = lookup.kubeconfigEnv ?? process.env.KUBECONFIG ?? '';
  const list = env.split(delimiter).filter((p) => p !== '');
  if (list.length > 0) {
    return {
      paths: list,
      skipMissing: true,
      described: `none of the KUBECONFIG files (${list.join(', ')}) exists`,
    };
  }
  const path = join(lookup.home ?? homedir(), '.kube', 'config');
  return { paths: [path], skipMissing: true, described: `${path} does not exist` };
}

const listNames = (names: Iterable<string>): string => {
  const all = [...names];
  return all.length > 0 ? all.join(', ') : 'none';
};

/** Reads, merges and selects one context as kubectl would, or says exactly what is wrong. */
export function selectKubeconfigContext(lookup: KubeconfigLookup = {}): SelectedContext {
  const { paths, skipMissing, described } = filesToRead(lookup);
  const files = paths.flatMap((path) => {
    const config = readKubeconfig(path, skipMissing);
    return config ? [{ path, config }] : [];
  });
  if (files.length === 0) {
    throw new KubeconfigError(
      'missing',
      `no kubeconfig: ${described} (pass --kubeconfig FILE or set KUBECONFIG)`,
    );
  }
  const merged = merge(files);
  const where = files.map((f) => f.path).join(', ');
  const name = lookup.context ?? merged.currentContext;
  if (!name) {
    throw new KubeconfigError(
      'unknown-context',
      `kubeconfig ${where} sets no current-context; pass --context (contexts: ${listNames(merged.contexts.keys())})`,
    );
  }
  const context = merged.contexts.get(name);
  if (!context) {
    throw new KubeconfigError(
      'unknown-context',
      `context "${name}" is not in kubeconfig ${where} (contexts: ${listNames(merged.contexts.keys())})`,
    );
  }
  const cluster = merged.clusters.get(context.cluster);
  if (!cluster?.server) {
    const why = cluster ? 'which has no server' : 'which it does not define';
    throw new KubeconfigError(
      'incomplete',
      `context "${name}" in kubeconfig ${where} names cluster "${context.cluster}", ${why}`,
    );
  }
  const userName = context.user ?? '';
  const user = merged.users.get(userName);
  if (userName !== '' && !user) {
    throw new KubeconfigError(
      'incomplete',
      `context "${name}" in kubeconfig ${where} names user "${userName}", which it does not define`,
    );
  }
  return {
    files: files.map((f) => f.path),
    context: name,
    namespace: context.namespace || 'default',
    clusterName: context.cluster,
    cluster,
    userName,
    user: user ?? {},
  };
}
