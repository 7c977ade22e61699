/**
 * `fencer agent --action=metadata` against the real fence-agents RelaxNG schema, as Debian's
 * fence-agents package installs it (.ci/run unpacks it there), checked by xmllint (libxml2-utils).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { agentMetadata } from '../../../cli/agent/metadata.js';
import { ACTIONS, AGENT_NAME, PARAMETERS } from '../../../cli/agent/parameters.js';
import { REPO_ROOT } from '../../../lab/paths.js';

const SCHEMA = '/usr/share/cluster/relaxng/metadata.rng';
const dir = mkdtempSync(join(tmpdir(), 'agent-metadata-'));

/** xmllint's verdict on `xml` against fence-agents' schema: its exit code and what it said. */
function validate(xml: string): { code: number | null; said: string } {
  if (!existsSync(SCHEMA))
    throw new Error(`${SCHEMA} is missing: .ci/run unpacks it from Debian's fence-agents package`);
  const file = join(dir, `metadata-${Math.random().toString(36).slice(2)}.xml`);
  writeFileSync(file, xml);
  const run = spawnSync('xmllint', ['--noout', '--relaxng', SCHEMA, file], { encoding: 'utf8' });
  if (run.error) throw new Error(`xmllint did not run (Debian package libxml2-utils): ${run.error.message}`);
  return { code: run.status, said: `${run.stdout}${run.stderr}` };
}

/** One value read out of the metadata by XPath, as a tool reading it would. */
function xpath(xml: string, expression: string): string {
  const file = join(dir, 'read.xml');
  writeFileSync(file, xml);
  return execFileSync('xmllint', ['--xpath', expression, file], { encoding: 'utf8' }).trim();
}

describe("the agent's metadata", () => {
  const xml = agentMetadata();

  it("validates against fence-agents' RelaxNG schema", () => {
    const { code, said } = validate(xml);
    expect(said).toContain('validates');
    expect(code).toBe(0);
  });

  it('is refused by the same check when it lacks what the schema requires (the check can fail)', () => {
    const { code, said } = validate(xml.replace(/<vendor-url>.*<\/vendor-url>\n/, ''));
    expect(code).not.toBe(0);
    expect(said).toMatch(/fails to validate/);
  });

  it('names the agent and lists every parameter the agent accepts, plug also under its old name port', () => {
    expect(xpath(xml, 'string(/resource-agent/@name)')).toBe(AGENT_NAME);
    const names = xpath(xml, '/resource-agent/parameters/parameter/@name')
      .trim()
      .split(/\s+/)
      .map((a) => a.replace(/^name="(.*)"$/, '$1'));
    expect(names.sort()).toEqual([...PARAMETERS.map((p) => p.name), 'port'].sort());
    expect(xpath(xml, 'string(//parameter[@name="port"]/@deprecated)')).toBe('1');
    expect(xpath(xml, 'string(//parameter[@name="plug"]/@obsoletes)')).toBe('port');
    expect(xpath(xml, 'string(//parameter[@name="power_timeout"]/content/@type)')).toBe('second');
    expect(xpath(xml, 'string(//parameter[@name="power_timeout"]/content/@default)')).toBe('300');
  });

  it('advertises the actions it answers, and not on, which it refuses', () => {
    const actions = xpath(xml, '/resource-agent/actions/action/@name').trim().split(/\s+/);
    expect(actions.map((a) => a.replace(/^name="(.*)"$/, '$1'))).toEqual([
      'off',
      'reboot',
      'status',
      'list',
      'list-status',
      'monitor',
      'metadata',
      'validate-all',
    ]);
  });

  it('says in its longdesc that reboot leaves the machine off and that on is refused', () => {
    const longdesc = xpath(xml, 'string(/resource-agent/longdesc)');
    expect(longdesc).toMatch(/reboot is off: kube-fencer never powers a machine on/);
    expect(longdesc).toMatch(/on is refused with exit 1/);
  });
});

describe("the agent's documentation (docs/cli.md)", () => {
  const section =
    readFileSync(join(REPO_ROOT, 'docs/cli.md'), 'utf8').split('## `agent`')[1]?.split('\n## ')[0] ?? '';

  it('names every option and every action the agent accepts', () => {
    expect(section.length).toBeGreaterThan(1000);
    for (const p of PARAMETERS) expect(section, p.name).toContain(`\`${p.name}\``);
    for (const action of ACTIONS) expect(section, action).toContain(`\`${action}\``);
  });
});
