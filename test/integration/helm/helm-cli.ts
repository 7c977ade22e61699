/**
 * The chart's tests run the real helm (built from its Go module by the lab build, lab/build/helm.ts):
 * its own folders in a temporary home, so a test never reads or writes the machine's helm settings.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadAll } from 'js-yaml';
import { REPO_ROOT } from '../../../lab/paths.js';

export const CHART_DIR = join(REPO_ROOT, 'deploy', 'helm', 'kube-fencer');

/** The documented values files (deploy/helm/kube-fencer/ci/), by file name. */
export const ciValuesFiles = (): string[] =>
  readdirSync(join(CHART_DIR, 'ci'))
    .filter((f) => f.endsWith('-values.yaml'))
    .sort();

export interface HelmResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** A manifest as helm renders it. */
export interface Manifest {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: {
    readonly name: string;
    readonly namespace?: string;
    readonly labels?: Record<string, string>;
    readonly annotations?: Record<string, string>;
  };
  readonly [field: string]: unknown;
}

export class Helm {
  readonly #home = mkdtempSync(join(tmpdir(), 'kube-fencer-helm-'));

  constructor(
    private readonly binary: string,
    private readonly kubeconfig?: string,
  ) {}

  run(args: readonly string[]): Promise<HelmResult> {
    const env = {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: this.#home,
      HELM_CACHE_HOME: join(this.#home, 'cache'),
      HELM_CONFIG_HOME: join(this.#home, 'config'),
      HELM_DATA_HOME: join(this.#home, 'data'),
      // No cluster unless one is given: `helm template` and `helm lint` need none.
      KUBECONFIG: this.kubeconfig ?? join(this.#home, 'no-kubeconfig'),
    };
    return new Promise((resolve) => {
      execFile(this.binary, args, { env, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      });
    });
  }

  /** `helm template` of the chart with a values file of ci/ (or none) and `--set`s; throws on failure. */
  async template(options: {
    release?: string;
    namespace: string;
    values?: string;
    set?: readonly string[];
  }): Promise<Manifest[]> {
    const result = await this.run(templateArgs(options));
    if (result.code !== 0) throw new Error(`helm template failed: ${result.stderr.trim()}`);
    return parseManifests(result.stdout);
  }

  cleanup(): void {
    rmSync(this.#home, { recursive: true, force: true });
  }
}

export interface TemplateOptions {
  readonly release?: string;
  readonly namespace: string;
  /** A file of ci/. */
  readonly values?: string;
  readonly set?: readonly string[];
  /** Render the chart's crds/ too (`helm install` applies them; `helm template` leaves them out). */
  readonly includeCrds?: boolean;
}

export function templateArgs(options: TemplateOptions): string[] {
  return [
    'template',
    options.release ?? 'kf',
    CHART_DIR,
    '--namespace',
    options.namespace,
    ...(options.values ? ['--values', join(CHART_DIR, 'ci', options.values)] : []),
    ...(options.set ?? []).flatMap((s) => ['--set', s]),
    ...(options.includeCrds ? ['--include-crds'] : []),
  ];
}

export const parseManifests = (text: string): Manifest[] =>
  (loadAll(text) as (Manifest | null)[]).filter((m): m is Manifest => m !== null);

export const ofKind = (manifests: readonly Manifest[], kind: string): Manifest[] =>
  manifests.filter((m) => m.kind === kind);

/** The one manifest of a kind; throws when there is not exactly one. */
export function only(manifests: readonly Manifest[], kind: string): Manifest {
  const found = ofKind(manifests, kind);
  if (found.length !== 1) throw new Error(`expected one ${kind}, rendered ${found.length}`);
  return found[0] as Manifest;
}
