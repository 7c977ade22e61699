/**
 * The published CloudFormation template, for teams that deploy without CDK (the console, the AWS CLI,
 * Terraform's `aws_cloudformation_stack`): the stack of one EKS cluster whose API endpoint the
 * functions reach without a VPC, with parameters for what differs between such clusters. It is the
 * project's own stack, synthesized with placeholders that are then turned into parameters:
 *
 * - the cluster's name (`ClusterName`: the instances' `kubernetes.io/cluster/<name>` tag and the EKS
 *   cluster's name) wherever it appears: in values through `Fn::Sub`, and in the one place CloudFormation
 *   allows no function, an IAM condition key, by writing that policy document as a `Fn::Sub` string;
 * - `DryRun` (the fence request's default, `true` for the first week), `AlarmEmail` (optional);
 * - where the release's function zips were uploaded (`CodeBucket`, `CodePrefix`).
 *
 * Anything else (a VPC, Ceph, several clusters, another access) is a stack of your own: clusters.json
 * with `npm run synth`, or the `KubeFencer` construct.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { App, DefaultStackSynthesizer } from 'aws-cdk-lib';
import { type Zippable, zipSync } from 'fflate';
import { KubeFencerStack } from './fencer-stack.js';
import { BUNDLE_FILE, FUNCTIONS, type FunctionName } from './function-names.js';
import { LAMBDA_DIST } from './package-build.js';
import { NOTICES_FILE } from './third-party-notices.js';

/** Names that appear nowhere else in the synthesized stack, and so can be told apart and replaced. */
const CLUSTER = 'kubefencerpublishedcluster';
const EMAIL = 'kube-fencer-published-alarm@example.invalid';
const DRY_RUN = '"dryRun":true';
/** What each placeholder becomes inside a `Fn::Sub` string. */
const CLUSTER_PARAMETER = `\${ClusterName}`;
const DRY_RUN_PARAMETER = `"dryRun":\${DryRun}`;

export const TEMPLATE_PARAMETERS = {
  ClusterName: {
    Type: 'String',
    Description: "The cluster's name: its EKS name and its instances' kubernetes.io/cluster/<name> tag.",
    AllowedPattern: '^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$',
  },
  DryRun: {
    Type: 'String',
    Description: 'Fence in dry run only (no power-off, no taint): true for the first week, then false.',
    AllowedValues: ['true', 'false'],
    Default: 'true',
  },
  AlarmEmail: {
    Type: 'String',
    Description:
      'An e-mail address subscribed to the outcomes topic (every run ending, every alarm); empty: none.',
    Default: '',
  },
  CodeBucket: {
    Type: 'String',
    Description: "The S3 bucket, in the stack's region, holding the release's function zips.",
  },
  CodePrefix: {
    Type: 'String',
    Description: 'The key prefix of the zips in CodeBucket.',
    Default: 'kube-fencer/',
  },
} as const;

/** One function's zip, as uploaded under `CodePrefix`. */
export interface PublishedCode {
  readonly name: FunctionName;
  /** `<function>-<sha256 prefix>.zip`: new code, new key, so an update redeploys. */
  readonly key: string;
  readonly zip: Uint8Array;
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

/** 1980-01-01, the earliest time a zip can hold: the same bundle always zips to the same bytes. */
const ZIP_TIME = new Date('1980-01-01T00:00:00Z');

/** Zips each function's bundle of dist/lambda/ (built by infra/package-build.ts). */
export function functionZips(root: string): PublishedCode[] {
  return FUNCTIONS.map((name) => {
    const dir = join(root, LAMBDA_DIST, name);
    const files: Zippable = Object.fromEntries(
      [BUNDLE_FILE, `${BUNDLE_FILE}.map`, NOTICES_FILE].map((f) => [
        f,
        [readFileSync(join(dir, f)), { mtime: ZIP_TIME }],
      ]),
    );
    const zip = zipSync(files, { level: 9 });
    const hash = createHash('sha256').update(zip).digest('hex').slice(0, 16);
    return { name, key: `${name}-${hash}.zip`, zip };
  });
}

/** The project's stack for one EKS cluster, with the placeholders in. */
function synthesizeWithPlaceholders(): JsonObject {
  const app = new App({
    // The functions' code is the release's zips (replaced below): nothing to bundle here.
    context: { 'aws:cdk:bundling-stacks': [], 'aws:cdk:enable-path-metadata': false },
    analyticsReporting: false,
  });
  const stack = new KubeFencerStack(app, 'KubeFencer', {
    clusters: [{ name: CLUSTER, eks: {}, requestDefaults: { dryRun: true } }],
    alarmEmail: EMAIL,
    synthesizer: new DefaultStackSynthesizer({ generateBootstrapVersionRule: false }),
    description: 'kube-fencer: proves dead Kubernetes nodes off through EC2, then releases their volumes',
  });
  return app.synth().getStackByName(stack.stackName).template as JsonObject;
}

const isObject = (v: Json): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Replaces every string (keys too) by `f` of it, deep. */
function mapStrings(value: Json, f: (s: string) => string): Json {
  if (typeof value === 'string') return f(value);
  if (Array.isArray(value)) return value.map((v) => mapStrings(v, f));
  if (isObject(value)) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [f(k), mapStrings(v, f)]));
  }
  return value;
}

/** A value with intrinsic functions as a `Fn::Sub` template string (Ref, GetAtt, Join, Sub only). */
function subTemplate(value: Json): string {
  if (typeof value === 'string') return value.replaceAll('${', '${!');
  if (isObject(value)) {
    const [fn, arg] = Object.entries(value)[0] ?? [];
    if (fn === 'Ref' && typeof arg === 'string') return `\${${arg}}`;
    if (fn === 'Fn::GetAtt' && Array.isArray(arg)) return `\${${arg.join('.')}}`;
    if (fn === 'Fn::Join' && Array.isArray(arg) && typeof arg[0] === 'string' && Array.isArray(arg[1])) {
      return arg[1].map(subTemplate).join(arg[0].replaceAll('${', '${!'));
    }
    if (fn === 'Fn::Sub' && typeof arg === 'string') return arg;
  }
  throw new Error(`published template: cannot write ${JSON.stringify(value)} into a Fn::Sub string`);
}

/** A JSON document (a policy) as one `Fn::Sub` string, every intrinsic inside written as `${…}`. */
function documentAsSub(document: Json): string {
  const render = (v: Json): string => {
    if (Array.isArray(v)) return `[${v.map(render).join(',')}]`;
    if (isObject(v)) {
      const [fn] = Object.keys(v);
      if (fn === 'Ref' || fn?.startsWith('Fn::')) return `"${subTemplate(v)}"`;
      return `{${Object.entries(v)
        .map(([k, x]) => `${JSON.stringify(k).replaceAll('${', '${!')}:${render(x)}`)
        .join(',')}}`;
    }
    return JSON.stringify(v).replaceAll('${', '${!');
  };
  return render(document);
}

/** Turns the placeholders of one value into parameters. */
function parameterize(value: Json, key?: string): Json {
  if (typeof value === 'string') {
    if (!value.includes(CLUSTER) && !value.includes(DRY_RUN)) return value;
    const template = value
      .replaceAll('${', '${!')
      .replaceAll(CLUSTER, CLUSTER_PARAMETER)
      .replaceAll(DRY_RUN, DRY_RUN_PARAMETER);
    return { 'Fn::Sub': template };
  }
  if (Array.isArray(value)) return value.map((v) => parameterize(v));
  if (!isObject(value)) return value;
  // A policy whose condition key names the cluster: a key cannot hold a function, a Fn::Sub string can.
  if (key === 'PolicyDocument') {
    const keyNamesCluster = (v: Json): boolean =>
      Array.isArray(v)
        ? v.some(keyNamesCluster)
        : isObject(v) && Object.entries(v).some(([k, x]) => k.includes(CLUSTER) || keyNamesCluster(x));
    if (keyNamesCluster(value)) {
      return { 'Fn::Sub': documentAsSub(value).replaceAll(CLUSTER, CLUSTER_PARAMETER) };
    }
  }
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, parameterize(v, k)]));
}

/** The same template with every logical id that names the cluster or the e-mail renamed without it. */
function renameLogicalIds(synthesized: JsonObject): JsonObject {
  const ids = new Map<string, string>();
  for (const section of ['Resources', 'Outputs', 'Mappings'] as const) {
    for (const id of Object.keys((synthesized[section] ?? {}) as JsonObject)) {
      const renamed = id.replaceAll(CLUSTER, '').replace(EMAIL.replace(/[^A-Za-z0-9]/g, ''), 'AlarmEmail');
      if (renamed !== id) ids.set(id, renamed);
    }
  }
  return mapStrings(synthesized, (s) => {
    const exact = ids.get(s);
    if (exact) return exact;
    // Inside a Fn::Sub string: `${Id}` or `${Id.Attribute}`.
    return s.includes('${')
      ? s.replace(
          /\$\{([A-Za-z0-9]+)([.}])/g,
          (_match, id: string, end: string) => `\${${ids.get(id) ?? id}${end}`,
        )
      : s;
  }) as JsonObject;
}

/** The e-mail subscription made optional, each function's code taken from the release's zips. */
function pointAtParameters(resources: Record<string, JsonObject>, code: readonly PublishedCode[]): void {
  for (const [id, resource] of Object.entries(resources)) {
    const props = resource.Properties as JsonObject | undefined;
    if (resource.Type === 'AWS::SNS::Subscription' && props?.Endpoint === EMAIL) {
      props.Endpoint = { Ref: 'AlarmEmail' };
      resource.Condition = 'HasAlarmEmail';
    }
    if (resource.Type === 'AWS::Lambda::Function' && props) {
      const name = FUNCTIONS.find((f) => id.startsWith(`Cluster${f.replaceAll('-', '')}Function`));
      const zip = code.find((c) => c.name === name);
      if (!zip) throw new Error(`published template: ${id} is no function this release zips`);
      props.Code = { S3Bucket: { Ref: 'CodeBucket' }, S3Key: { 'Fn::Sub': `\${CodePrefix}${zip.key}` } };
    }
    delete resource.Metadata;
  }
}

/** The published template and the zips its functions name. */
export function publishedTemplate(root: string): { template: JsonObject; code: PublishedCode[] } {
  const code = functionZips(root);
  const { Outputs, Mappings, Resources, Description } = renameLogicalIds(synthesizeWithPlaceholders());
  pointAtParameters(Resources as Record<string, JsonObject>, code);
  // An output's description must be literal.
  for (const output of Object.values((Outputs ?? {}) as Record<string, JsonObject>)) {
    if (typeof output.Description === 'string')
      output.Description = output.Description.replace(CLUSTER, 'the cluster');
  }
  const template: JsonObject = {
    AWSTemplateFormatVersion: '2010-09-09',
    Description: Description ?? null,
    Parameters: TEMPLATE_PARAMETERS as unknown as JsonObject,
    Conditions: { HasAlarmEmail: { 'Fn::Not': [{ 'Fn::Equals': [{ Ref: 'AlarmEmail' }, ''] }] } },
    ...(Mappings ? { Mappings } : {}),
    Resources: parameterize(Resources ?? {}) as JsonObject,
    ...(Outputs ? { Outputs: parameterize(Outputs) as JsonObject } : {}),
  };
  const text = JSON.stringify(template);
  for (const placeholder of [CLUSTER, EMAIL]) {
    const at = text.indexOf(placeholder);
    if (at >= 0)
      throw new Error(`published template: ${placeholder} is left in it: …${text.slice(at - 200, at + 50)}…`);
  }
  return { template, code };
}
