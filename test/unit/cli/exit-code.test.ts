/**
 * The exit code of a run the provider's refusal ended (docs/cli.md, "Exit codes"): rejected credentials exit 7
 * at once, like the access check's own; any other permanent refusal 10; a plain failure stays 4.
 */
import { describe, expect, it } from 'vitest';
import { exitCodeFor } from '../../../cli/commands/report-output.js';
import type { RunReport } from '../../../lib/app/fence/report.js';

const report = (outcome: RunReport['outcome'], reason: RunReport['reason']) =>
  ({ outcome, reason }) as unknown as RunReport;

describe('exitCodeFor', () => {
  it.each([
    ['refused', 'ProviderCredentialsRejected', 7],
    ['failed', 'ProviderCredentialsRejected', 7],
    ['refused', 'ProviderCallRejected', 10],
    ['failed', 'ProviderApiError', 4],
    ['refused', 'NodeReady', 3],
    ['fenced', null, 0],
  ] as const)('a run %s with %s exits %i', (outcome, reason, code) => {
    expect(exitCodeFor(report(outcome, reason))).toBe(code);
  });
});
