/**
 * docs/deploy-aws.md's "Deploying from an empty account" stays followable: every command in it exists with the
 * options it is given (npm scripts in package.json, CDK subcommands and their flags from `cdk --help`,
 * AWS CLI operations and parameters from the AWS SDK's own service models, kubectl verbs and flags from
 * the lab's kubectl, files in the repository), and its synth step runs, offline, as written.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { binDir } from '../../lab/build/go-binaries.js';
import { REPO_ROOT } from '../../lab/paths.js';

const deployAws = readFileSync(join(REPO_ROOT, 'docs/deploy-aws.md'), 'utf8');
const start = deployAws.indexOf('## Deploying from an empty account');
const guide = deployAws.slice(start, deployAws.indexOf('\n## ', start + 3));
const scripts = (
  JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
).scripts;

/** Splits a command line into words as a shell would (quotes kept together, not expanded). */
function words(line: string): string[] {
  const out: string[] = [];
  let word = '';
  let quote: string | null = null;
  for (const ch of line) {
    if (quote) {
      if (ch === quote) quote = null;
      else word += ch;
    } else if (ch === "'" || ch === '"') quote = ch;
    else if (ch === ' ') {
      if (word) out.push(word);
      word = '';
    } else word += ch;
  }
  if (word) out.push(word);
  return out;
}

/** The guide's commands: sh blocks, continuations joined, loops and assignments unwrapped. */
function commands(): string[][] {
  const blocks = [...guide.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1] ?? '');
  return blocks
    .flatMap((b) => b.replace(/\\\n\s*/g, ' ').split('\n'))
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#') && l !== 'done' && !/^for .*; do$/.test(l))
    .map((l) => {
      const inner = /^[A-Z_]+=\$\((.*)\)$/.exec(l)?.[1];
      return words(inner ?? l);
    });
}

const optionsOf = (args: readonly string[]): string[] =>
  args.filter((a) => a.startsWith('-')).map((a) => a.split('=')[0] as string);

/** CLI service name → the SDK package that models it. */
const SDK: Record<string, string> = {
  eks: '@aws-sdk/client-eks',
  ec2: '@aws-sdk/client-ec2',
  cloudwatch: '@aws-sdk/client-cloudwatch',
  stepfunctions: '@aws-sdk/client-sfn',
};
/** Options of the AWS CLI itself, on every operation. */
const AWS_CLI_OPTIONS = new Set(['--query', '--output', '--region', '--profile', '--max-items']);
/**
 * Options the AWS CLI adds to an operation beyond its API parameters (its documented customizations):
 * `authorize-security-group-ingress --protocol/--port/--source-group` build IpPermissions.
 */
const CLI_CUSTOMIZATIONS: Record<string, readonly string[]> = {
  'ec2 authorize-security-group-ingress': ['--protocol', '--port', '--source-group'],
};

const pascal = (kebab: string) => kebab.replace(/(^|-)([a-z])/g, (_m, _d, c: string) => c.toUpperCase());
const require = createRequire(import.meta.url);

/** The API parameter names of an operation, from the SDK's schema of its request. */
function parametersOf(service: string, operation: string): string[] | null {
  const sdk = require(SDK[service] as string) as Record<string, unknown>;
  const op = pascal(operation);
  if (typeof sdk[`${op}Command`] !== 'function') return null;
  const request = (sdk[`${op}Request$`] ?? sdk[`${op}Input$`]) as unknown[] | undefined;
  return ((request?.[4] as string[] | undefined) ?? []).map((m) => m.toLowerCase());
}

const help = new Map<string, string>();
const helpOf = (program: string, args: readonly string[]): string => {
  const key = [program, ...args].join(' ');
  if (!help.has(key)) {
    help.set(
      key,
      execFileSync(program, [...args, '--help'], { cwd: REPO_ROOT, encoding: 'utf8', timeout: 120_000 }),
    );
  }
  return help.get(key) ?? '';
};

describe('the deploy guide', () => {
  const all = commands();

  it('has the steps of a deploy from an empty account', () => {
    const lines = all.map((c) => c.join(' '));
    const order = [
      'npm ci',
      'npm run synth',
      'npx cdk bootstrap',
      'cp deploy/clusters.example.json clusters.json',
      'aws eks update-cluster-config',
      'kubectl apply -f deploy/rbac.yaml',
      'npx cdk deploy',
      'aws cloudwatch describe-alarms',
      'aws stepfunctions start-execution',
      'npx cdk diff',
    ].map((step) => lines.findIndex((l) => l.startsWith(step)));
    expect(order.every((i) => i >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    for (const key of [
      'kube-fencer:clustersFile',
      'kube-fencer:alarmEmail',
      'dryRun',
      'statusCheckAlarms',
      'vpc.subnetIds',
    ]) {
      expect(guide).toContain(key);
    }
  });

  it.each(commands().map((c) => [c.join(' '), c] as const))('`%s` exists as written', (_line, command) => {
    const [program, ...args] = command;
    switch (program) {
      case 'export':
        expect(args.every((a) => /^[A-Z_]+=\S+$/.test(a))).toBe(true);
        return;
      case 'npm':
        if (args[0] === 'run') expect(Object.keys(scripts)).toContain(args[1]);
        else expect(args).toEqual(['ci']);
        return;
      case 'cp':
        expect(existsSync(join(REPO_ROOT, args[0] as string))).toBe(true);
        return;
      case 'npx': {
        expect(args[0]).toBe('cdk');
        const text = helpOf('npx', ['cdk', args[1] as string]);
        expect(text).toContain(`cdk ${args[1]}`);
        for (const option of optionsOf(args))
          expect(text, option).toMatch(new RegExp(`(^|[\\s,])${option}[\\s,]`));
        for (const file of args.flatMap((a) => /clustersFile=(.+)$/.exec(a)?.[1] ?? [])) {
          // The guide's own copy, made from the example by its `cp` step.
          expect(['clusters.json']).toContain(file);
        }
        return;
      }
      case 'aws': {
        const [service = '', operation = '', ...rest] = args;
        expect(Object.keys(SDK), service).toContain(service);
        const parameters = parametersOf(service, operation);
        expect(parameters, `${service} ${operation}`).not.toBeNull();
        const custom = CLI_CUSTOMIZATIONS[`${service} ${operation}`] ?? [];
        for (const option of optionsOf(rest)) {
          if (AWS_CLI_OPTIONS.has(option) || custom.includes(option)) continue;
          expect(parameters, `${service} ${operation} ${option}`).toContain(
            option.slice(2).replaceAll('-', ''),
          );
        }
        return;
      }
      case 'kubectl': {
        const kubectl = join(binDir(), 'kubectl');
        expect(existsSync(kubectl), `${kubectl} (npm run lab:build builds it)`).toBe(true);
        const verbs = args.filter((a) => !a.startsWith('-')).slice(0, args[0] === 'auth' ? 2 : 1);
        // kubectl's global options (--as, --as-group, --context, …) are listed by `kubectl options`.
        const text = helpOf(kubectl, verbs) + execFileSync(kubectl, ['options'], { encoding: 'utf8' });
        for (const option of optionsOf(args))
          expect(text, option).toMatch(new RegExp(`(^|\\s)${option}[=,]`));
        const file = args[args.indexOf('-f') + 1];
        if (args.includes('-f') && file) expect(existsSync(join(REPO_ROOT, file))).toBe(true);
        return;
      }
      default:
        throw new Error(`the guide runs ${program}, which this test does not know how to check`);
    }
  });

  // Bundles every function and runs cdk-nag: a minute or more on a busy 2-core machine.
  it('synthesizes, offline and without AWS credentials, with its own synth command', {
    timeout: 600_000,
  }, () => {
    const synth = all.find((c) => c.join(' ') === 'npm run synth');
    expect(synth).toBeDefined();
    const out = mkdtempSync(join(tmpdir(), 'kube-fencer-guide-synth-'));
    const env: Record<string, string | undefined> = { ...process.env };
    for (const key of Object.keys(env)) if (/^(AWS_|CDK_DEFAULT_)/.test(key)) delete env[key];

    const run = spawnSync('npm', ['run', 'synth', '--', '--output', out], {
      cwd: REPO_ROOT,
      env,
      encoding: 'utf8',
    });

    expect(run.status, run.stderr).toBe(0);
    const template = JSON.parse(readFileSync(join(out, 'KubeFencer.template.json'), 'utf8')) as {
      Resources: Record<string, { Type: string }>;
    };
    const types = Object.values(template.Resources).map((r) => r.Type);
    expect(types).toContain('AWS::StepFunctions::StateMachine');
    expect(types.filter((t) => t === 'AWS::Lambda::Function')).toHaveLength(6);
    expect(run.stderr + run.stdout).not.toMatch(/feature flags are not configured/);
  });
});
