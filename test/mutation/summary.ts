/**
 * Prints what a mutation run (`npm run mutation`) found, from Stryker's JSON report: the score per folder
 * and every mutant no test noticed (file:line:column, mutator, replacement). Exits 1 when lib/domain is
 * below its floor, so the score cannot slip unnoticed.
 *
 * Given several reports (the JSON report or incremental files of narrow runs, `--mutate` folder by
 * folder), it merges them source file by source file: for each file the report written last (by its
 * modification time) wins, since it judged that file's current mutants.
 *
 * Usage: `node --import tsx test/mutation/summary.ts [report.json ...]` (default
 * reports/mutation/mutation.json)
 */
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { calculateMetrics } from 'mutation-testing-metrics';
import type { FileResult, MutantResult, MutationTestResult } from 'mutation-testing-report-schema';

/** The least share of lib/domain's mutants the tests must kill (issue "Safety under attack"). */
const DOMAIN_FLOOR = 90;

/** The parts scored; `folder/*` stands for the files directly in the folder, without its subfolders. */
const FOLDERS = [
  'lib/domain',
  'lib/domain/*',
  'lib/domain/rules',
  'lib/domain/sweep',
  'lib/domain/diagnose',
  'lib/app',
];
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

function under(files: Record<string, FileResult>, part: string): Record<string, FileResult> {
  const directOnly = part.endsWith('/*');
  const folder = directOnly ? part.slice(0, -2) : part;
  return Object.fromEntries(
    Object.entries(files).filter(
      ([name]) =>
        name.startsWith(`${folder}/`) && !(directOnly && name.slice(folder.length + 1).includes('/')),
    ),
  );
}

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

/** Every source file's results, each from the newest report that holds it. */
function mergeReports(reports: readonly string[]): Record<string, FileResult> {
  const oldestFirst = [...reports].sort((a, b) => statSync(a).mtimeMs - statSync(b).mtimeMs);
  return Object.assign({}, ...oldestFirst.map(readReport));
}

const reports = process.argv.slice(2);
const files = mergeReports(reports.length > 0 ? reports : ['reports/mutation/mutation.json']);
printUndetected(files);
const domain = printScores(files);
if (!(domain >= DOMAIN_FLOOR)) {
  console.log(`\nlib/domain: ${domain.toFixed(2)} % of mutants killed, below the floor of ${DOMAIN_FLOOR} %`);
  process.exitCode = 1;
} else {
  console.log(`\nlib/domain: ${domain.toFixed(2)} % of mutants killed (floor ${DOMAIN_FLOOR} %)`);
}
