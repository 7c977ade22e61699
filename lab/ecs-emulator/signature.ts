/**
 * Server-side checks of Alibaba Cloud's request signatures, written from the documented algorithms:
 * ACS3-HMAC-SHA256 in the `Authorization` header (what `@alicloud/openapi-core` sends by default) and
 * the legacy RPC signature (HMAC-SHA1 in the `Signature` query parameter). A wrong secret, a tampered
 * parameter or header, an unknown key, a stale date, a reused nonce or a foreign STS token is refused
 * with the code Alibaba uses.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { EcsApiError } from './errors.js';

/** A key the emulator knows: an AccessKey pair, or STS credentials when `securityToken` is set. */
export interface Principal {
  readonly accessKeyId: string;
  readonly accessKeySecret: string;
  readonly securityToken?: string;
}

/** The parts of a request a signature covers. */
export interface SignedRequest {
  readonly method: string;
  readonly path: string;
  /** The raw query string (after `?`), as sent. */
  readonly rawQuery: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
  /** Query and form parameters, decoded. */
  readonly params: Readonly<Record<string, string>>;
}

/** Headers every ACS3 request must sign (the docs: every common header but Authorization). */
const REQUIRED_SIGNED = [
  'host',
  'x-acs-action',
  'x-acs-content-sha256',
  'x-acs-date',
  'x-acs-signature-nonce',
  'x-acs-version',
];
const MAX_SKEW_MS = 15 * 60 * 1000;

/** encodeURIComponent, plus the characters RFC 3986 reserves that it leaves alone. */
export const percentEncode = (value: string): string =>
  encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

const sha256Hex = (data: string | Buffer): string => createHash('sha256').update(data).digest('hex');

const header = (headers: IncomingHttpHeaders, name: string): string | undefined => {
  const value = headers[name];
  return Array.isArray(value) ? value.join(',') : value;
};

const sameText = (a: string, b: string): boolean => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
};

const mismatch = () =>
  new EcsApiError(400, 'SignatureDoesNotMatch', 'Specified signature is not matched with our calculation.');

/** Decoded query pairs of the raw query string, in the order sent. */
const queryPairs = (rawQuery: string): [string, string][] =>
  rawQuery
    .split('&')
    .filter(Boolean)
    .map((pair) => {
      const eq = pair.indexOf('=');
      const decode = (s: string) => decodeURIComponent(s.replace(/\+/g, '%20'));
      return eq < 0 ? [decode(pair), ''] : [decode(pair.slice(0, eq)), decode(pair.slice(eq + 1))];
    });

/** Verifies signatures against a set of principals, remembering nonces for the allowed clock skew. */
export class SignatureVerifier {
  readonly #principals: Map<string, Principal>;
  readonly #nonces = new Map<string, number>();

  constructor(
    principals: readonly Principal[],
    private readonly now: () => number = Date.now,
  ) {
    this.#principals = new Map(principals.map((p) => [p.accessKeyId, p]));
  }

  /** The principal that signed the request; throws {@link EcsApiError} when the signature does not hold. */
  verify(request: SignedRequest): Principal {
    const authorization = header(request.headers, 'authorization');
    if (authorization?.startsWith('ACS3-')) return this.#verifyAcs3(request, authorization);
    if (request.params.Signature !== undefined) return this.#verifyRpc(request);
    throw new EcsApiError(
      400,
      'IncompleteSignature',
      'The request signature does not conform to Aliyun standards.',
    );
  }

  #principal(accessKeyId: string | undefined): Principal {
    const principal = accessKeyId ? this.#principals.get(accessKeyId) : undefined;
    if (!principal)
      throw new EcsApiError(404, 'InvalidAccessKeyId.NotFound', 'Specified access key is not found.');
    return principal;
  }

  #verifyAcs3(request: SignedRequest, authorization: string): Principal {
    const match = /^ACS3-HMAC-SHA256 Credential=([^,]+),SignedHeaders=([^,]+),Signature=([0-9a-f]{64})$/.exec(
      authorization,
    );
    if (!match)
      throw new EcsApiError(
        400,
        'IncompleteSignature',
        'The request signature does not conform to Aliyun standards.',
      );
    const [, accessKeyId = '', signedList = '', signature = ''] = match;
    const principal = this.#principal(accessKeyId);
    const signed = signedList.split(';');
    const missing = REQUIRED_SIGNED.filter(
      (h) => !signed.includes(h) || header(request.headers, h) === undefined,
    );
    if (missing.length > 0) {
      throw new EcsApiError(
        400,
        'IncompleteSignature',
        `The request signature does not conform to Aliyun standards: ${missing.join(', ')} not signed.`,
      );
    }
    const payloadHash = sha256Hex(request.body);
    if (header(request.headers, 'x-acs-content-sha256') !== payloadHash) throw mismatch();
    const canonicalQuery = queryPairs(request.rawQuery)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([k, v]) => `${k}=${percentEncode(v)}`)
      .join('&');
    const canonicalHeaders = [...signed]
      .sort()
      .map((h) => `${h}:${(header(request.headers, h) ?? '').trim()}\n`)
      .join('');
    const canonicalRequest = [
      request.method,
      request.path,
      canonicalQuery,
      canonicalHeaders,
      signed.join(';'),
      payloadHash,
    ].join('\n');
    const stringToSign = `ACS3-HMAC-SHA256\n${sha256Hex(canonicalRequest)}`;
    const expected = createHmac('sha256', principal.accessKeySecret).update(stringToSign).digest('hex');
    if (!sameText(expected, signature)) throw mismatch();
    this.#checkFreshness(
      header(request.headers, 'x-acs-date'),
      header(request.headers, 'x-acs-signature-nonce'),
    );
    this.#checkToken(principal, header(request.headers, 'x-acs-security-token'));
    return principal;
  }

  #verifyRpc(request: SignedRequest): Principal {
    const params = request.params;
    const principal = this.#principal(params.AccessKeyId);
    if (params.SignatureMethod !== 'HMAC-SHA1' || params.SignatureVersion !== '1.0') {
      throw new EcsApiError(
        400,
        'IncompleteSignature',
        'The request signature does not conform to Aliyun standards.',
      );
    }
    const canonical = Object.keys(params)
      .filter((k) => k !== 'Signature')
      .sort()
      .map((k) => `${percentEncode(k)}=${percentEncode(params[k] ?? '')}`)
      .join('&');
    const stringToSign = `${request.method}&${percentEncode('/')}&${percentEncode(canonical)}`;
    const expected = createHmac('sha1', `${principal.accessKeySecret}&`)
      .update(stringToSign)
      .digest('base64');
    if (!sameText(expected, params.Signature ?? '')) throw mismatch();
    this.#checkFreshness(params.Timestamp, params.SignatureNonce);
    this.#checkToken(principal, params.SecurityToken);
    return principal;
  }

  #checkFreshness(date: string | undefined, nonce: string | undefined): void {
    const at = date ? Date.parse(date) : Number.NaN;
    const now = this.now();
    if (Number.isNaN(at) || Math.abs(now - at) > MAX_SKEW_MS) {
      throw new EcsApiError(
        400,
        'InvalidTimeStamp.Expired',
        'Specified time stamp or date value is expired.',
      );
    }
    if (!nonce)
      throw new EcsApiError(400, 'MissingSignatureNonce', 'SignatureNonce is mandatory for this action.');
    for (const [seen, when] of this.#nonces) if (now - when > MAX_SKEW_MS) this.#nonces.delete(seen);
    if (this.#nonces.has(nonce))
      throw new EcsApiError(400, 'SignatureNonceUsed', 'Specified signature nonce was used already.');
    this.#nonces.set(nonce, now);
  }

  #checkToken(principal: Principal, token: string | undefined): void {
    if (principal.securityToken === undefined) return;
    if (!token)
      throw new EcsApiError(400, 'MissingSecurityToken', 'SecurityToken is mandatory for this action.');
    if (!sameText(token, principal.securityToken)) {
      throw new EcsApiError(
        400,
        'InvalidSecurityToken.MismatchWithAccessKey',
        'Specified SecurityToken mismatch with the AccessKey.',
      );
    }
  }
}
