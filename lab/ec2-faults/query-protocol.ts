/**
 * The slice of EC2's query protocol the fault injector needs: what a request asks for (form-encoded
 * `Action=…&InstanceId.1=…`, as the AWS SDK sends it), EC2's throttling error, and the few answer
 * rewrites that stage provider states moto cannot hold. Pure functions over text, so they are
 * checked against moto's real answers in test/integration/lab/ec2-faults.test.ts.
 */
import { randomUUID } from 'node:crypto';

/** What one EC2 call is about, read from its parameters. */
export interface Ec2Call {
  readonly action: string;
  /** `InstanceId.N`, and the values of `instance-id`/`attachment.instance-id` filters. */
  readonly instanceIds: readonly string[];
  /** `VolumeId.N`, and the values of `volume-id` filters. */
  readonly volumeIds: readonly string[];
  readonly dryRun: boolean;
}

const INSTANCE_FILTERS: ReadonlySet<string> = new Set(['instance-id', 'attachment.instance-id']);
const VOLUME_FILTERS: ReadonlySet<string> = new Set(['volume-id']);

/** Values of list parameters `<prefix>.1`, `<prefix>.2`, … in order. */
const listValues = (params: URLSearchParams, prefix: string): string[] =>
  [...params.entries()]
    .filter(([key]) => new RegExp(`^${prefix.replace('.', '\\.')}\\.\\d+$`).test(key))
    .map(([, value]) => value);

/** Values of every `Filter.N` whose `Name` is in `names`. */
const filterValues = (params: URLSearchParams, names: ReadonlySet<string>): string[] => {
  const out: string[] = [];
  for (const [key, name] of params.entries()) {
    const match = /^Filter\.(\d+)\.Name$/.exec(key);
    if (match && names.has(name)) out.push(...listValues(params, `Filter.${match[1]}.Value`));
  }
  return out;
};

/**
 * Reads an EC2 query-protocol request: the parameters of the URL and of a form-encoded body
 * together (the SDK POSTs them all in the body). A request without `Action` is not an EC2 call.
 */
export function parseEc2Call(body: string, search = ''): Ec2Call | undefined {
  const params = new URLSearchParams(search);
  for (const [key, value] of new URLSearchParams(body)) params.append(key, value);
  const action = params.get('Action');
  if (!action) return undefined;
  return {
    action,
    instanceIds: [...listValues(params, 'InstanceId'), ...filterValues(params, INSTANCE_FILTERS)],
    volumeIds: [...listValues(params, 'VolumeId'), ...filterValues(params, VOLUME_FILTERS)],
    dryRun: params.get('DryRun')?.toLowerCase() === 'true',
  };
}

/**
 * The instance ids a request names as `InstanceId.N`, not through a filter: EC2 answers
 * `InvalidInstanceID.NotFound` about an id it does not know only there (a filter just matches nothing).
 */
export function namedInstanceIds(body: string, search = ''): string[] {
  const params = new URLSearchParams(search);
  for (const [key, value] of new URLSearchParams(body)) params.append(key, value);
  return listValues(params, 'InstanceId');
}

/** Calls that change something: everything but the reads (`Describe*`, `Get*`, `List*`). */
export const isMutating = (action: string): boolean => !/^(Describe|Get|List)/.test(action);

/** The HTTP status and body of an EC2 error answer, as EC2 sends them. */
export interface Ec2Answer {
  readonly status: number;
  readonly body: string;
  /** Headers to send with it (moto's, when the answer is moto's). */
  readonly headers?: Readonly<Record<string, string | string[] | undefined>>;
}

/**
 * EC2's throttling answer: HTTP 503 with `RequestLimitExceeded` in EC2's XML error shape. The SDK
 * classifies the code as throttling, so its retry strategy backs off and retries it as it would in AWS.
 */
export const throttlingAnswer = (requestId: string = randomUUID()): Ec2Answer => ({
  status: 503,
  // The SDK reads the request id from this header (moto sends it too); EC2 also puts it in the body.
  headers: { 'x-amzn-requestid': requestId },
  body:
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
    '<Response><Errors><Error><Code>RequestLimitExceeded</Code><Message>Request limit exceeded.</Message>' +
    `</Error></Errors><RequestID>${requestId}</RequestID></Response>`,
});

/** EC2's answer about instance ids it does not know (a terminated instance it has forgotten). */
export const instanceNotFoundAnswer = (
  ids: readonly string[],
  requestId: string = randomUUID(),
): Ec2Answer => ({
  status: 400,
  headers: { 'x-amzn-requestid': requestId },
  body:
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
    '<Response><Errors><Error><Code>InvalidInstanceID.NotFound</Code>' +
    `<Message>The instance IDs '${ids.join(', ')}' do not exist</Message>` +
    `</Error></Errors><RequestID>${requestId}</RequestID></Response>`,
});

/** The error code of an EC2 error answer, if it is one. */
export const errorCodeOf = (body: string): string | undefined =>
  /<Errors>\s*<Error>\s*<Code>([^<]+)<\/Code>/.exec(body)?.[1];

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * `<instanceId>ID</instanceId>`, then anything up to `tag` that does not cross into another
 * instance's element (EC2 and moto both put an instance's state after its id).
 */
const afterInstanceId = (instanceId: string, tag: string): RegExp =>
  new RegExp(
    `(<instanceId>${escapeRegExp(instanceId)}</instanceId>(?:(?!<instanceId>)[\\s\\S])*?<${tag}>)\\s*<code>\\d+</code>\\s*<name>[a-z-]+</name>`,
    'g',
  );

/**
 * The answer with every `instanceState` of `instanceId` replaced by `stopping` (code 64), the state a
 * machine reports while a stop has not completed. Answers that do not name the instance are unchanged.
 */
export const reportStopping = (xml: string, instanceId: string): string =>
  xml.replace(afterInstanceId(instanceId, 'instanceState'), '$1<code>64</code><name>stopping</name>');

/** The `previousState` of each instance in a Start/Stop/TerminateInstances answer, by instance id. */
export function previousStatesOf(xml: string, instanceIds: readonly string[]): Record<string, string> {
  const states: Record<string, string> = {};
  for (const id of instanceIds) {
    const match = new RegExp(
      `<instanceId>${escapeRegExp(id)}</instanceId>(?:(?!<instanceId>)[\\s\\S])*?<previousState>\\s*<code>\\d+</code>\\s*<name>([a-z-]+)</name>`,
    ).exec(xml);
    if (match?.[1]) states[id] = match[1];
  }
  return states;
}

/**
 * What EC2 answers a StopInstances it accepted for a running machine: `stopping`, was `running`.
 * Used for a held stop, which the injector answers without passing it on.
 */
export const heldStopAnswer = (
  instanceIds: readonly string[],
  requestId: string = randomUUID(),
): Ec2Answer => ({
  status: 200,
  body:
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
    '<StopInstancesResponse xmlns="http://ec2.amazonaws.com/doc/2016-11-15/">' +
    `<requestId>${requestId}</requestId><instancesSet>` +
    instanceIds
      .map(
        (id) =>
          `<item><instanceId>${id}</instanceId><currentState><code>64</code><name>stopping</name></currentState>` +
          '<previousState><code>16</code><name>running</name></previousState></item>',
      )
      .join('') +
    '</instancesSet></StopInstancesResponse>',
});
