/**
 * Ceph RBD storage fencing in the AWS stack: the FENCER_CEPH_* environment of the step function (which
 * fences) and the sweep (which keeps standing fences alive), their read access to the one secret holding
 * the key, only when the cluster asks for it; the mgr's port in the created security group; settings the
 * function would refuse are refused at synth.
 */
import { readFileSync } from 'node:fs';
import { Match, type Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { cephConfigSchema } from '../../infra/ceph-config.js';
import { CEPH_KEY_PLACEHOLDER, withCephKeyFromSecret } from '../../lib/adapters/ceph-rbd/key-secret.js';
import { CEPH_ENV, cephRbdSettingsFromEnv } from '../../lib/adapters/ceph-rbd/settings.js';
import { synth } from '../support/synth.js';

const CA = readFileSync(new URL('./fixtures/ceph-restful.crt', import.meta.url), 'utf8');
const SECRET_ARN = 'arn:aws:secretsmanager:us-east-1:123456789012:secret:ceph-restful-key-AbCdEf';
const VPC = { vpcId: 'vpc-0123456789abcdef0', subnetIds: ['subnet-0123456789abcdef0'] };
const ceph = (more: Record<string, unknown> = {}) => ({
  mgrUrls: ['https://10.0.0.5:8003/', 'https://10.0.0.6:8003/'],
  keyName: 'kube-fencer',
  keySecret: { arn: SECRET_ARN },
  caPem: CA,
  ...more,
});
const cluster = (more: Record<string, unknown> = {}) => ({
  name: 'prod',
  eks: {},
  vpc: VPC,
  ceph: ceph(),
  ...more,
});

type Fn = {
  Properties: { Environment?: { Variables?: Record<string, unknown> }; Role: { 'Fn::GetAtt': [string] } };
};
type Statement = { Action: string | string[]; Resource: unknown; Condition?: unknown; Sid?: string };
type Policy = { Properties: { PolicyDocument: { Statement: Statement[] }; Roles: { Ref: string }[] } };

const functionsOf = (t: Template) =>
  Object.entries(t.findResources('AWS::Lambda::Function') as Record<string, Fn>);
const stepOf = (t: Template) => {
  const found = functionsOf(t).filter(([id]) => id.startsWith('ClusterprodstepFunction'));
  expect(found).toHaveLength(1);
  return found[0]?.[1] as Fn;
};
const sweepOf = (t: Template) => {
  const found = functionsOf(t).filter(([id]) => id.startsWith('ClusterprodsweepFunction'));
  expect(found).toHaveLength(1);
  return found[0]?.[1] as Fn;
};
/** The functions that reach Ceph: the step function fences, the sweep keeps standing fences alive. */
const fencesStorage = (id: string) =>
  id.startsWith('ClusterprodstepFunction') || id.startsWith('ClusterprodsweepFunction');
const variables = (fn: Fn) => fn.Properties.Environment?.Variables ?? {};
const cephVariables = (fn: Fn) => Object.keys(variables(fn)).filter((k) => k.startsWith('FENCER_CEPH_'));
/** The statements of the policies attached to a function's role. */
const statementsOf = (t: Template, fn: Fn): Statement[] => {
  const role = fn.Properties.Role['Fn::GetAtt'][0];
  return Object.values(t.findResources('AWS::IAM::Policy') as Record<string, Policy>)
    .filter((p) => p.Properties.Roles.some((r) => r.Ref === role))
    .flatMap((p) => p.Properties.PolicyDocument.Statement);
};
const readsSecrets = (s: Statement) => [s.Action].flat().some((a) => a.startsWith('secretsmanager:'));

describe('a cluster with Ceph settings', () => {
  const { template } = synth([cluster()]);
  const step = stepOf(template);

  it('gives the step function the FENCER_CEPH_* environment: every mgr, the key name, the secret, the certificate', () => {
    expect(variables(step)).toMatchObject({
      [CEPH_ENV.mgrUrl]: 'https://10.0.0.5:8003/,https://10.0.0.6:8003/',
      [CEPH_ENV.keyName]: 'kube-fencer',
      [CEPH_ENV.keySecretId]: SECRET_ARN,
      [CEPH_ENV.ca]: CA,
    });
    expect(variables(step)).not.toHaveProperty(CEPH_ENV.key);
  });

  it('names the ceph-csi clusters this Ceph serves when the config does, comma-separated', () => {
    const named = stepOf(
      synth([cluster({ ceph: ceph({ clusterIds: ['rook-ceph', 'rook-ceph-2'] }) })]).template,
    );
    expect(variables(named)[CEPH_ENV.clusterIds]).toBe('rook-ceph,rook-ceph-2');
    expect(variables(step)).not.toHaveProperty(CEPH_ENV.clusterIds);
  });

  it('gives that environment to the step function and the sweep only: the triggers never reach Ceph', () => {
    const sweep = sweepOf(template);
    expect(variables(sweep)).toMatchObject(
      Object.fromEntries(cephVariables(step).map((k) => [k, variables(step)[k]])),
    );
    const others = functionsOf(template).filter(([id]) => !fencesStorage(id));
    expect(others.length).toBeGreaterThanOrEqual(3);
    for (const [, fn] of others) expect(cephVariables(fn)).toEqual([]);
  });

  it('lets the step function and the sweep read that one secret, and no other function read any', () => {
    for (const fn of [step, sweepOf(template)]) {
      expect(statementsOf(template, fn).filter(readsSecrets)).toEqual([
        expect.objectContaining({
          Action: ['secretsmanager:DescribeSecret', 'secretsmanager:GetSecretValue'],
          Resource: SECRET_ARN,
        }),
      ]);
    }
    for (const [id, fn] of functionsOf(template)) {
      if (!fencesStorage(id)) expect(statementsOf(template, fn).filter(readsSecrets)).toEqual([]);
    }
  });

  it('lets the functions out to each mgr’s address on its port, and nowhere else on it', () => {
    template.hasResourceProperties('AWS::EC2::SecurityGroup', {
      SecurityGroupEgress: Match.arrayWith([
        Match.objectLike({ CidrIp: '10.0.0.5/32', FromPort: 8003, ToPort: 8003, IpProtocol: 'tcp' }),
        Match.objectLike({ CidrIp: '10.0.0.6/32', FromPort: 8003, ToPort: 8003, IpProtocol: 'tcp' }),
      ]),
    });
    const egress = Object.values(template.findResources('AWS::EC2::SecurityGroup')).flatMap(
      (sg) =>
        (sg as { Properties: { SecurityGroupEgress: { CidrIp: string; FromPort: number }[] } }).Properties
          .SecurityGroupEgress,
    );
    expect(
      egress
        .filter((r) => r.FromPort === 8003)
        .map((r) => r.CidrIp)
        .sort(),
    ).toEqual(['10.0.0.5/32', '10.0.0.6/32']);
  });

  it('lets the functions out to a mgr named by DNS on its port only, towards any address (it may move)', () => {
    const { template: dns } = synth([
      cluster({ ceph: ceph({ mgrUrls: ['https://mgr.ceph.internal:8003/'] }) }),
    ]);

    dns.hasResourceProperties('AWS::EC2::SecurityGroup', {
      SecurityGroupEgress: Match.arrayWith([
        Match.objectLike({ CidrIp: '0.0.0.0/0', FromPort: 8003, ToPort: 8003, IpProtocol: 'tcp' }),
      ]),
    });
  });

  it('deploys settings the step function reads back, at cold start, as the ones configured', async () => {
    const env = Object.fromEntries(Object.entries(variables(step)).map(([k, v]) => [k, String(v)]));
    const noFiles = (path: string): string => {
      throw new Error(`unexpected read of ${path}`);
    };

    const settings = cephRbdSettingsFromEnv(await withCephKeyFromSecret(env, async () => 'the-key'), noFiles);

    expect(settings).toMatchObject({
      mgrUrl: 'https://10.0.0.5:8003/',
      standbyMgrUrls: ['https://10.0.0.6:8003/'],
      keyName: 'kube-fencer',
      key: 'the-key',
      ca: CA,
    });
  });
});

describe('a cluster without Ceph settings', () => {
  const { template } = synth([{ name: 'prod', eks: {}, vpc: VPC }]);

  it('gives no function any FENCER_CEPH_* variable, no secret read, and no port but HTTPS out', () => {
    for (const [, fn] of functionsOf(template)) {
      expect(cephVariables(fn)).toEqual([]);
      expect(statementsOf(template, fn).filter(readsSecrets)).toEqual([]);
    }
    template.resourceCountIs('AWS::SecretsManager::Secret', 0);
    const ports = Object.values(template.findResources('AWS::EC2::SecurityGroup')).flatMap((sg) =>
      (
        sg as { Properties: { SecurityGroupEgress: { FromPort: number }[] } }
      ).Properties.SecurityGroupEgress.map((r) => r.FromPort),
    );
    expect(ports).toEqual([443]);
  });
});

describe('where the key is kept', () => {
  it('a secret named, not by ARN: the read is on that name’s ARNs only, and the function asks by name', () => {
    const { template } = synth([cluster({ ceph: ceph({ keySecret: { name: 'prod/ceph-restful-key' } }) })]);
    const step = stepOf(template);

    expect(variables(step)[CEPH_ENV.keySecretId]).toBe('prod/ceph-restful-key');
    const reads = statementsOf(template, step).filter(readsSecrets);
    expect(reads).toHaveLength(1);
    expect(JSON.stringify(reads[0]?.Resource)).toContain(':secret:prod/ceph-restful-key-??????');
  });

  it('a secret the stack creates: retained, holding the placeholder the function recognises, read by the step function and the sweep only', () => {
    const { template } = synth([cluster({ ceph: ceph({ keySecret: { create: true } }) })]);
    const step = stepOf(template);
    const [secretId] = Object.keys(template.findResources('AWS::SecretsManager::Secret'));

    template.hasResource('AWS::SecretsManager::Secret', {
      Properties: { SecretString: CEPH_KEY_PLACEHOLDER },
      DeletionPolicy: 'Retain',
    });
    expect(variables(step)[CEPH_ENV.keySecretId]).toEqual({ Ref: secretId });
    for (const fn of [step, sweepOf(template)]) {
      expect(statementsOf(template, fn).filter(readsSecrets)).toEqual([
        expect.objectContaining({ Resource: { Ref: secretId } }),
      ]);
    }
    template.hasOutput('*', {
      Value: { Ref: secretId },
      Description: Match.stringLikeRegexp('put-secret-value'),
    });
  });

  it('a secret under a customer-managed key: kms:Decrypt on that key, through Secrets Manager only', () => {
    const keyArn = 'arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab';
    const { template } = synth([cluster({ ceph: ceph({ keySecretKmsKeyArn: keyArn }) })]);

    expect(statementsOf(template, stepOf(template))).toContainEqual(
      expect.objectContaining({
        Sid: 'DecryptCephKeySecret',
        Action: 'kms:Decrypt',
        Resource: keyArn,
        Condition: { StringEquals: { 'kms:ViaService': 'secretsmanager.us-east-1.amazonaws.com' } },
      }),
    );
  });
});

describe('settings the step function would refuse are refused at synth, naming the field', () => {
  const fails = (clusterConfig: Record<string, unknown>) => () => synth([clusterConfig]);

  it.each([
    ['a plain-http mgr', { mgrUrls: ['http://10.0.0.5:8003/'] }, /mgrUrls.*must be an https:\/\/ URL/s],
    [
      'a standby mgr in plain http',
      { mgrUrls: ['https://10.0.0.5:8003/', 'http://10.0.0.6:8003/'] },
      /mgrUrls.*1.*must be an https/s,
    ],
    ['no key name', { keyName: '' }, /keyName/],
    ['a certificate that is not PEM', { caPem: 'pinned' }, /caPem.*must be a PEM certificate/s],
    [
      'a PEM that is not a certificate',
      { caPem: '-----BEGIN CERTIFICATE-----\nnot base64\n-----END CERTIFICATE-----\n' },
      /caPem.*not a certificate Node.js can read/s,
    ],
    [
      'a partial secret ARN',
      { keySecret: { arn: 'arn:aws:secretsmanager:us-east-1:123456789012:secret:ceph-key' } },
      /complete ARN/,
    ],
    ['two places for the key', { keySecret: { name: 'a', create: true } }, /keySecret/],
    ['a storage range wider than /16', { extraRanges: { 'worker-2': ['10.20.0.0/8'] } }, /extraRanges/],
    ['an expiry under an hour', { blocklistExpireSeconds: 60 }, /blocklistExpireSeconds/],
    ['a clusterID with a comma in it', { clusterIds: ['rook-ceph,other'] }, /clusterIds/],
    [
      'a customer key for a secret the stack creates',
      { keySecret: { create: true }, keySecretKmsKeyArn: 'arn:aws:kms:us-east-1:123456789012:key/k' },
      /keySecretKmsKeyArn.*belongs with an existing secret/s,
    ],
    ['an unknown setting', { verify: false }, /verify/],
  ])('%s', (_what, change, error) => {
    expect(fails(cluster({ ceph: ceph(change) }))).toThrow(error);
  });

  it('a mgr at a private address with no VPC to reach it from', () => {
    expect(fails({ name: 'prod', eks: {}, ceph: ceph() })).toThrow(
      /the mgr at https:\/\/10\.0\.0\.5:8003\/ has a private address, which a function outside a VPC cannot reach/,
    );
    // A public mgr (behind its own firewall) needs no VPC.
    expect(() =>
      synth([{ name: 'prod', eks: {}, ceph: ceph({ mgrUrls: ['https://ceph.example.com:8003/'] }) }]),
    ).not.toThrow();
  });

  it('an environment over Lambda’s 4 KB (a whole CA bundle), before any deploy', () => {
    expect(fails(cluster({ ceph: ceph({ caPem: CA.repeat(7) }) }))).toThrow(
      /the step function's environment would be about \d+ bytes, over Lambda's 4096/,
    );
  });
});

describe('docs/deploy-aws.md, "Deploying with Ceph RBD (AWS)"', () => {
  const deployAws = readFileSync(new URL('../../docs/deploy-aws.md', import.meta.url), 'utf8');
  const start = deployAws.indexOf('### Deploying with Ceph RBD (AWS)');
  const section = deployAws.slice(start, deployAws.indexOf('\n### ', start + 4));

  it.each(Object.keys(cephConfigSchema.shape))('documents the setting %s', (key) => {
    expect(start).toBeGreaterThan(0);
    expect(section).toMatch(new RegExp(`\\| \`${key}\`|, \`${key}\` \\|`));
  });

  it('names the variable the step function reads the secret from, and the placeholder’s error', () => {
    expect(section).toContain(CEPH_ENV.keySecretId);
    expect(section).toContain('holds no Ceph restful key yet: put the key');
  });
});
