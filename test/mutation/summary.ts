/**
 * Prints what a mutation run (`npm run mutation`) found, from Stryker's JSON report: the score per folder
 * and every mutant no test noticed (file:line:column, mutator, replacement). Exits 1 when lib/domain is
 * below its floor, so the score cannot slip unnoticed.
 *
 * Usage: `node --import tsx test/mutation/summary.ts [reports/mutation/mutation.json]`
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { calculateMetrics } from 'mutation-testing-metrics';
import type { FileResult, MutantResult, MutationTestResult } from 'mutation-testing-report-schema';

/** The least share of lib/domain's mutants the tests must kill (issue "Safety under attack"). */
const DOMAIN_FLOOR = 90;

const FOLDERS = ['lib/domain', 'lib/domain/rules', 'lib/domain/sweep', 'lib/domain/diagnose', 'lib/app'];
const UNDETECTED = new Set<MutantResult['status']>(['Survived', 'NoCoverage']);

function readReport(file: string): Record<string, FileResult> {
  const report = JSON.parse(readFileSync(file, 'utf8')) as MutationTestResult;
  // Stryker writes paths relative to where it ran; normalise in case a report carries absolute ones.
  return Object.fromEntries(
    Object.entries(report.files).map(([name, result]) => [
      path.relative(process.cwd(), path.resolve(name)).split(path.sep).join('/'),
      result,
    ]),
  );
}

const under = (files: Record<string, FileResult>, folder: string) =>
  Object.fromEntries(Object.entries(files).filter(([name]) => name.startsWith(`${folder}/`)));

/** Killed or timed out, over every valid mutant (survivors and uncovered ones count against it). */
function score(files: Record<string, FileResult>): { line: string; score: number } | null {
  if (Object.keys(files).length === 0) return null;
  const m = calculateMetrics(files).metrics;
  const cells = [m.totalValid, m.killed, m.timeout, m.survived, m.noCoverage, m.totalInvalid, m.ignored];
  return {
    score: m.mutationScore,
    line: `${cells.map((n) => String(n).padStart(8)).join('')}${m.mutationScore.toFixed(2).padStart(8)} %`,
  };
}

const oneLine = (text: string | undefined, max = 90): string => {
  const flat = (text ?? '').replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
};

function printScores(files: Record<string, FileResult>): number {
  let domain = Number.NaN;
  console.log(
    `\n${'folder'.padEnd(22)}${'   valid  killed timeout survived  no cov  errors ignored   score'}`,
  );
  for (const folder of FOLDERS) {
    const row = score(under(files, folder));
    if (row === null) continue;
    if (folder === 'lib/domain') domain = row.score;
    console.log(`${folder.padEnd(22)}${row.line}`);
  }
  return domain;
}

function printUndetected(files: Record<string, FileResult>): void {
  const rows = Object.entries(files)
    .flatMap(([name, file]) =>
      file.mutants.filter((m) => UNDETECTED.has(m.status)).map((m) => ({ name, mutant: m })),
    )
    .sort(
      (a, b) =>
        a.name.localeCompare(b.name) ||
        a.mutant.location.start.line - b.mutant.location.start.line ||
        a.mutant.location.start.column - b.mutant.location.start.column,
    );
  console.log(`\nmutants no test noticed: ${rows.length}`);
  for (const { name, mutant } of rows) {
    const where = `${name}:${mutant.location.start.line}:${mutant.location.start.column}`;
    const status = mutant.status === 'NoCoverage' ? ' (no test reaches it)' : '';
    console.log(`  ${where}  ${mutant.mutatorName}${status}  → ${oneLine(mutant.replacement)}`);
  }
}

const files = readReport(process.argv[2] ?? 'reports/mutation/mutation.json');
printUndetected(files);
const domain = printScores(files);
if (!(domain >= DOMAIN_FLOOR)) {
  console.log(`\nlib/domain: ${domain.toFixed(2)} % of mutants killed, below the floor of ${DOMAIN_FLOOR} %`);
  process.exitCode = 1;
} else {
  console.log(`\nlib/domain: ${domain.toFixed(2)} % of mutants killed (floor ${DOMAIN_FLOOR} %)`);
}
