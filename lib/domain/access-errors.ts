/**
 * Why the fencer cannot reach what it acts on: the kubeconfig, the credentials, the network, the
 * permissions. These are not fencing outcomes but the operator's environment, so each names what is
 * wrong and the next step in one sentence; the CLI maps each class to its own exit code.
 */

/** Which API the problem is with. */
export type AccessService = 'kubernetes' | 'aws' | 'alibaba';

/** What is wrong with a kubeconfig. */
export type KubeconfigProblem =
  /** No file where one was named or expected. */
  | 'missing'
  /** A file exists but cannot be read (permissions, a folder). */
  | 'unreadable'
  /** Not YAML, or not shaped like a kubeconfig. */
  | 'malformed'
  /** `--context` (or `current-context`) names no context of the kubeconfig. */
  | 'unknown-context'
  /** The context exists but names a cluster or user the kubeconfig does not define, or no server. */
  | 'incomplete'
  /** Something kubectl would accept that the fencer cannot use (an `auth-provider`). */
  | 'unsupported';

/** A kubeconfig that cannot be used as it is. */
export class KubeconfigError extends Error {
  override readonly name = 'KubeconfigError';
  readonly problem: KubeconfigProblem;

  constructor(problem: KubeconfigProblem, message: string, options?: ErrorOptions) {
    super(message, options);
    this.problem = problem;
  }
}

/** Credentials that are missing, expired, or that the API rejected (HTTP 401, a failing credential plugin). */
export class CredentialsError extends Error {
  override readonly name = 'CredentialsError';
  readonly service: AccessService;

  constructor(service: AccessService, message: string, options?: ErrorOptions) {
    super(message, options);
    this.service = service;
  }
}

/** An API that did not answer: refused, unresolvable, timed out, or not to be trusted (TLS). */
export class UnreachableError extends Error {
  override readonly name = 'UnreachableError';
  readonly service: AccessService;
  /** The URL that was tried. */
  readonly endpoint: string;

  constructor(service: AccessService, endpoint: string, message: string, options?: ErrorOptions) {
    super(message, options);
    this.service = service;
    this.endpoint = endpoint;
  }
}

/** One Kubernetes permission: what `kubectl auth can-i VERB RESOURCE` asks. */
export interface Permission {
  readonly verb: string;
  /** API group; `''` for the core group. */
  readonly group: string;
  readonly resource: string;
  /** Unset for cluster-scoped resources and for "in every namespace". */
  readonly namespace?: string;
  /** Unset for "any object of the resource". */
  readonly name?: string;
}

/** How `kubectl auth can-i` would name a permission, e.g. `patch nodes`, `update leases.coordination.k8s.io/kube-fencer -n kube-system`. */
export const describePermission = (p: Permission): string => {
  const resource = p.group ? `${p.resource}.${p.group}` : p.resource;
  const object = p.name ? `${resource}/${p.name}` : resource;
  return `${p.verb} ${object}${p.namespace ? ` -n ${p.namespace}` : ''}`;
};

/** The identity the fencer runs as lacks permissions a command needs; nothing was changed. */
export class PermissionDeniedError extends Error {
  override readonly name = 'PermissionDeniedError';
  readonly service: AccessService;
  readonly missing: readonly Permission[];

  constructor(service: AccessService, missing: readonly Permission[], message: string) {
    super(message);
    this.service = service;
    this.missing = missing;
  }
}

/** The access errors, by name: what the CLI (or a handler) branches on. */
export type AccessError = KubeconfigError | CredentialsError | UnreachableError | PermissionDeniedError;

const ACCESS_ERROR_NAMES: ReadonlySet<string> = new Set([
  'KubeconfigError',
  'CredentialsError',
  'UnreachableError',
  'PermissionDeniedError',
]);

/** Whether a value is one of the access errors (by name: bundles may carry more than one copy of a class). */
export const isAccessError = (value: unknown): value is AccessError =>
  value instanceof Error && ACCESS_ERROR_NAMES.has(value.name);
