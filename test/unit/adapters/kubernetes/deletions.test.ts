import { describe, expect, it } from 'vitest';
import { deleteOptions } from '../../../../lib/adapters/kubernetes/deletions.js';

describe('deleteOptions', () => {
  it('puts dry run in the DeleteOptions body, which the API server reads instead of the query', () => {
    // Act
    const body = deleteOptions({ dryRun: true }, { preconditions: { uid: 'uid-1' } });

    // Assess
    expect(body).toStrictEqual({ preconditions: { uid: 'uid-1' }, dryRun: ['All'] });
  });

  it('sends no dry run for a real delete', () => {
    // Act
    const body = deleteOptions({ dryRun: false }, { gracePeriodSeconds: 0, preconditions: { uid: 'uid-1' } });

    // Assess
    expect(body).toStrictEqual({ gracePeriodSeconds: 0, preconditions: { uid: 'uid-1' } });
  });
});
