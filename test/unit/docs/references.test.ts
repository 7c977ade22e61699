/**
 * The repository explains itself: its source cites only files inside it. Every mention of a design
 * note names SAFETY.md or docs/architecture.md, every relative link of every markdown file resolves
 * (file and anchor), every `SAFETY.md rule N` names one of the ten rules, and every rule of the
 * decision tables is listed in SAFETY.md and says which of its rules it keeps. The README and the
 * RUNBOOK stay sized for their readers: the RUNBOOK opens with its symptom → action index.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../../lab/paths.js';
import { ACTING_TABLE } from '../../../lib/domain/acting.js';
import { FENCE_TABLE } from '../../../lib/domain/fence-table.js';
import { UNFENCE_TABLE } from '../../../lib/domain/unfence-table.js';

const RULE_COUNT = 10;
const ARCHITECTURE = 'docs/architecture.md';

/** The repository's files (tracked, and new ones not ignored), outside node_modules and dist. */
function repoFiles(): string[] {
  const out = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '-z'], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  return [...new Set(out.split('\0'))]
    .filter((f) => f !== '')
    .filter((f) => !f.split('/').some((part) => part === 'node_modules' || part === 'dist'))
    .filter((f) => existsSync(join(REPO_ROOT, f)) && statSync(join(REPO_ROOT, f)).isFile())
    .sort();
}

const FILES = repoFiles();
const SCANNED = FILES.filter((f) => /\.(ts|md|mjs|json)$/.test(f));
const MARKDOWN = FILES.filter((f) => f.endsWith('.md'));
const text = (file: string) => readFileSync(join(REPO_ROOT, file), 'utf8');
const lineOf = (content: string, index: number) => content.slice(0, index).split('\n').length;

/** The rule numbers of a citation's list: "1", "2 and 3", "8, 10, 9 and 4". */
const numbers = (list: string) => list.split(/,?\s+and\s+|,\s*/).map(Number);

/** Blanks fenced code blocks and inline code spans (keeping line breaks), so that code is not read as links. */
function withoutCode(markdown: string): string {
  const blank = (s: string) => s.replace(/[^\n]/g, ' ');
  return markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, blank).replace(/`[^`\n]*`/g, blank);
}

/** A GitHub heading slug: lowercase, punctuation other than '-' and '_' dropped, spaces to '-'. */
function slug(heading: string): string {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The anchors a markdown file offers: its headings' slugs (repeats numbered as GitHub does) and explicit ids. */
function anchors(file: string): Set<string> {
  const content = text(file);
  const found = new Set<string>();
  const seen = new Map<string, number>();
  for (const m of withoutCode(content).matchAll(/^#{1,6}[ \t]+(.*?)[ \t]*#*[ \t]*$/gm)) {
    const base = slug(m[1] ?? '');
    const count = seen.get(base) ?? 0;
    found.add(count === 0 ? base : `${base}-${count}`);
    seen.set(base, count + 1);
  }
  for (const m of content.matchAll(/<a\s+(?:[^>]*\s)?(?:id|name)="([^"]+)"/g)) found.add(m[1] ?? '');
  return found;
}

const anchorCache = new Map<string, Set<string>>();
function anchorsOf(file: string): Set<string> {
  let found = anchorCache.get(file);
  if (found === undefined) {
    found = anchors(file);
    anchorCache.set(file, found);
  }
  return found;
}

describe('the repository cites only files inside it', () => {
  it('scans the repository', () => {
    expect(SCANNED.length).toBeGreaterThan(100);
    expect(MARKDOWN).toEqual(
      expect.arrayContaining([
        'README.md',
        'RUNBOOK.md',
        'SAFETY.md',
        'CONTRIBUTING.md',
        'bench/README.md',
        'docs/architecture.md',
        'docs/cli.md',
        'docs/deploy-aws.md',
        'docs/deploy-alibaba.md',
        'docs/ceph.md',
        'docs/support.md',
      ]),
    );
  });

  it('cites none of the background notes the repository does not hold', () => {
    // Built from parts, so that this file does not cite what it looks for.
    const notes = ['pain', 'mission', 'anchors', 'k8s-harness', 'ceph-lab', 'seed-article'];
    const note = new RegExp(
      `(?<![\\w-])(${notes.join('|')})\\.(md|txt)|${['seed', 'article'].join(' ')}`,
      'gi',
    );
    const bad: string[] = [];
    for (const file of SCANNED) {
      const content = text(file);
      for (const m of content.matchAll(note)) bad.push(`${file}:${lineOf(content, m.index ?? 0)}: ${m[0]}`);
    }
    expect(bad).toEqual([]);
  });

  it('names no design note but SAFETY.md and docs/architecture.md', () => {
    // Built from parts, so that this file does not cite what it looks for.
    const note = new RegExp(['safety', 'architecture', 'style'].map((n) => `${n}\\.md`).join('|'), 'gi');
    const bad: string[] = [];
    for (const file of SCANNED) {
      const content = text(file);
      for (const m of content.matchAll(note)) {
        const index = m.index ?? 0;
        const ok =
          m[0] === 'SAFETY.md' || `${content.slice(Math.max(0, index - 5), index)}${m[0]}` === ARCHITECTURE;
        if (!ok) bad.push(`${file}:${lineOf(content, index)}: ${m[0]}`);
      }
    }
    expect(bad).toEqual([]);
  });

  it('cites a rule of SAFETY.md as "SAFETY.md rule N", N one of its ten rules, each with its anchor', () => {
    const safety = anchorsOf('SAFETY.md');
    for (let n = 1; n <= RULE_COUNT; n++)
      expect(safety, `an anchor rule-${n} in SAFETY.md`).toContain(`rule-${n}`);
    const bad: string[] = [];
    let citations = 0;
    for (const file of SCANNED) {
      const content = text(file);
      for (const m of content.matchAll(/SAFETY\.md rules? (\d+(?:(?:,\s*|,?\s+and\s+)\d+)*)/g)) {
        citations++;
        for (const n of numbers(m[1] ?? '')) {
          if (!(n >= 1 && n <= RULE_COUNT && safety.has(`rule-${n}`))) {
            bad.push(`${file}:${lineOf(content, m.index ?? 0)}: ${m[0]} (no rule ${n})`);
          }
        }
      }
      // A number right after the file's name is a rule cited without the word: say "rule N".
      for (const m of content.matchAll(/SAFETY\.md,? \d+/g)) {
        bad.push(`${file}:${lineOf(content, m.index ?? 0)}: ${m[0]} (say "SAFETY.md rule N")`);
      }
    }
    expect(citations).toBeGreaterThan(100);
    expect(bad).toEqual([]);
  });

  it('cites only anchors that exist, in code as in markdown', () => {
    const bad: string[] = [];
    for (const file of SCANNED.filter((f) => !f.endsWith('.md'))) {
      const content = text(file);
      for (const m of content.matchAll(/(SAFETY\.md|docs\/architecture\.md)#([\w-]+)/g)) {
        if (!anchorsOf(m[1] ?? '').has(m[2] ?? ''))
          bad.push(`${file}:${lineOf(content, m.index ?? 0)}: ${m[0]}`);
      }
    }
    expect(bad).toEqual([]);
  });

  it('resolves every relative link of every markdown file, file and anchor', () => {
    const bad: string[] = [];
    let links = 0;
    for (const file of MARKDOWN) {
      const content = withoutCode(text(file));
      for (const m of content.matchAll(/\[[^\]\n]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
        const target = m[1] ?? '';
        if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // http, https, mailto: outside the repository
        links++;
        const where = `${file}:${lineOf(content, m.index ?? 0)}: (${target})`;
        const hash = target.indexOf('#');
        const path = decodeURIComponent(hash < 0 ? target : target.slice(0, hash));
        const anchor = hash < 0 ? undefined : decodeURIComponent(target.slice(hash + 1));
        const resolved =
          path === ''
            ? file
            : normalize(
                path.startsWith('/')
                  ? path.slice(1)
                  : relative(REPO_ROOT, join(REPO_ROOT, dirname(file), path)),
              );
        if (resolved.startsWith('..') || !existsSync(join(REPO_ROOT, resolved))) {
          bad.push(`${where} no such file`);
          continue;
        }
        if (anchor !== undefined) {
          if (!resolved.endsWith('.md')) bad.push(`${where} an anchor in a file that is not markdown`);
          else if (!anchorsOf(resolved).has(anchor)) bad.push(`${where} no such anchor in ${resolved}`);
        }
      }
    }
    expect(links).toBeGreaterThan(0);
    expect(bad).toEqual([]);
  });

  it('slugs headings as GitHub does', () => {
    expect(slug('The reconcile loop')).toBe('the-reconcile-loop');
    expect(slug('Deploying (AWS CDK)')).toBe('deploying-aws-cdk');
    expect(slug('Rule 1: **Proof before release**')).toBe('rule-1-proof-before-release');
    expect(slug('`lib/domain`, pure_code')).toBe('libdomain-pure_code');
  });
});

describe('each reader finds their part', () => {
  const bytes = (file: string) => statSync(join(REPO_ROOT, file)).size;

  it('keeps README.md within 15,000 bytes: what and why, install, the two commands, links', () => {
    expect(bytes('README.md')).toBeLessThanOrEqual(15_000);
  });

  it('keeps RUNBOOK.md within 30,000 bytes: on call only', () => {
    expect(bytes('RUNBOOK.md')).toBeLessThanOrEqual(30_000);
  });

  it('opens RUNBOOK.md, within its first 40 lines, with the symptom → action index', () => {
    const head = text('RUNBOOK.md').split('\n').slice(0, 40).join('\n');
    const start = head.indexOf('## Symptom → action');
    expect(start).toBeGreaterThan(0);
    const index = head.slice(start);
    const links = [...index.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]);
    expect(index).toContain('Multi-Attach');
    expect(index).toContain('still being used');
    expect(index).toContain('alarm');
    expect(index).toContain('reason code');
    expect(index).toContain('exit');
    expect(index).toContain('fencer itself is down');
    expect(links).toEqual(
      expect.arrayContaining([
        '#a-pod-stuck-on-still-being-used',
        '#alarms',
        '#refusal-and-failure-reasons',
        '#fencing-by-hand-when-the-fencer-is-down',
      ]),
    );
  });

  it("keeps the newcomer's two commands in the README", () => {
    const readme = text('README.md');
    const start = readme.indexOf('## The two commands');
    const section = readme.slice(start, readme.indexOf('\n## ', start + 3));
    expect(start).toBeGreaterThan(0);
    expect(section).toContain('npm ci && npm run demo');
    expect(section).toContain('npm ci && npm test');
  });
});

describe('every rule of the decision tables is in SAFETY.md', () => {
  const safety = readFileSync(join(REPO_ROOT, 'SAFETY.md'), 'utf8');
  const tables = { fence: FENCE_TABLE, unfence: UNFENCE_TABLE, acting: ACTING_TABLE };

  for (const [name, table] of Object.entries(tables)) {
    it(`lists each rule of the ${name} table by its id, and each rule names the SAFETY.md rules it keeps`, () => {
      const bad: string[] = [];
      for (const rule of table) {
        if (!safety.includes(`\`${rule.id}\``)) bad.push(`${rule.id}: not in SAFETY.md`);
        const cited = /^SAFETY\.md rules? (\d+(?:(?:,\s*|,?\s+and\s+)\d+)*): \S/.exec(rule.contract);
        if (cited === null)
          bad.push(`${rule.id}: contract does not start with "SAFETY.md rule N: ": ${rule.contract}`);
        else {
          for (const n of numbers(cited[1] ?? '')) {
            if (!(n >= 1 && n <= RULE_COUNT)) bad.push(`${rule.id}: no rule ${n}: ${rule.contract}`);
          }
        }
      }
      expect(bad).toEqual([]);
    });
  }
});
