/**
 * Before a command acts, ask the API server what `kubectl auth can-i` asks: is it there, does it
 * accept these credentials, may this identity do each thing the command will do. One
 * SelfSubjectAccessReview per permission (authoritative with every authorizer, EKS access entries
 * included, unlike a rules review), all at once; plus a SelfSubjectReview for the identity's name.
 * So a fence never powers an instance off and then finds it may not taint the node.
 */
import {
  CredentialsError,
  describePermission,
  type Permission,
  PermissionDeniedError,
  UnreachableError,
} from '../../domain/access-errors.js';
import { ApiClient, ApiStatusError } from './api/api-client.js';
import type { ApiEndpoint } from './api/endpoint.js';
import { serverMessage } from './errors.js';

/** Who the endpoint is, in the words of the kubeconfig, for messages. */
export interface EndpointIdentity {
  readonly context: string;
  readonly user: string;
  /** The credential plugin the user runs, e.g. `aws eks get-token`. */
  readonly plugin?: string;
}

/** A preflight should fail fast: an API server that does not answer in this time is not there. */
const REVIEW_TIMEOUT_MS = 10_000;

const NETWORK_CODES: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'no such host',
  EAI_AGAIN: 'name lookup failed',
  ETIMEDOUT: 'connection timed out',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ECONNRESET: 'connection reset',
  EPROTO: 'TLS handshake failed (is it an https server?)',
};

const TLS_CODES = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
]);

/** What a failed review call means to an operator, as one of the access errors (or the error itself). */
export function toAccessError(error: unknown, server: string, who: EndpointIdentity): Error {
  const where = `the Kubernetes API server ${server} (context "${who.context}")`;
  if (error instanceof ApiStatusError && error.statusCode === 401) {
    const source = who.plugin ? ` from credential plugin "${who.plugin}"` : '';
    return new CredentialsError(
      'kubernetes',
      `${where} rejected the credentials of user "${who.user}"${source} (HTTP 401): expired or invalid; renew them and retry`,
      { cause: error },
    );
  }
  if (error instanceof ApiStatusError) return error;
  const code = (error as NodeJS.ErrnoException | undefined)?.code ?? '';
  if (TLS_CODES.has(code)) {
    return new UnreachableError(
      'kubernetes',
      server,
      `cannot trust ${where}: its certificate does not verify against the kubeconfig's CA (${code})`,
      { cause: error },
    );
  }
  const network = NETWORK_CODES[code];
  const timedOut = error instanceof Error && /no answer from the API server/.test(error.message);
  if (network || timedOut) {
    const why = network ?? `no answer within ${REVIEW_TIMEOUT_MS / 1000} s`;
    return new UnreachableError('kubernetes', server, `cannot reach ${where}: ${why}`, { cause: error });
  }
  return error instanceof Error ? error : new Error(String(error));
}

interface ReviewStatus {
  readonly status?: { readonly allowed?: boolean };
}

async function allowed(api: ApiClient, p: Permission): Promise<boolean> {
  // RBAC names a subresource as `resource/subresource`; a review asks for the two apart.
  const [resource, subresource] = p.resource.split('/');
  const review = await api.call<ReviewStatus>({
    method: 'POST',
    path: '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews',
    body: {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SelfSubjectAccessReview',
      spec: {
        resourceAttributes: {
          verb: p.verb,
          group: p.group,
          resource,
          ...(subresource ? { subresource } : {}),
          ...(p.namespace ? { namespace: p.namespace } : {}),
          ...(p.name ? { name: p.name } : {}),
        },
      },
    },
  });
  return review.status?.allowed === true;
}

/** The authenticated user's name, as the API server knows it (`kubectl auth whoami`); null if it cannot say. */
async function whoAmI(api: ApiClient): Promise<string | null> {
  try {
    const review = await api.call<{ status?: { userInfo?: { username?: string } } }>({
      method: 'POST',
      path: '/apis/authentication.k8s.io/v1/selfsubjectreviews',
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
    });
    return review.status?.userInfo?.username ?? null;
  } catch {
    return null;
  }
}

/**
 * Resolves when the API server answers, accepts the credentials and allows every permission;
 * otherwise rejects with an {@link UnreachableError}, a {@link CredentialsError} or a
 * {@link PermissionDeniedError} naming every missing permission.
 */
export async function reviewAccess(
  endpoint: ApiEndpoint,
  permissions: readonly Permission[],
  who: EndpointIdentity,
): Promise<void> {
  const api = new ApiClient(endpoint, { timeoutMs: REVIEW_TIMEOUT_MS });
  let answers: boolean[];
  try {
    answers = await Promise.all(permissions.map((p) => allowed(api, p)));
  } catch (error) {
    const access = toAccessError(error, endpoint.server, who);
    if (!(access instanceof ApiStatusError)) throw access;
    if (access.statusCode === 403) {
      const review = { verb: 'create', group: 'authorization.k8s.io', resource: 'selfsubjectaccessreviews' };
      throw new PermissionDeniedError(
        'kubernetes',
        [review],
        `user "${who.user}" (context "${who.context}") may not ${describePermission(review)} (every authenticated user may, through system:basic-user)`,
      );
    }
    throw new UnreachableError(
      'kubernetes',
      endpoint.server,
      `the Kubernetes API server ${endpoint.server} (context "${who.context}") refused an access review (HTTP ${access.statusCode}): ${serverMessage(access)}`,
      { cause: access },
    );
  }
  const missing = permissions.filter((_, i) => !answers[i]);
  if (missing.length === 0) return;
  const user = (await whoAmI(api)) ?? who.user;
  throw new PermissionDeniedError(
    'kubernetes',
    missing,
    `user "${user}" (context "${who.context}") may not ${missing.map(describePermission).join(', ')}`,
  );
}
