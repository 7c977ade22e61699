import { describe, expect, it } from 'vitest';
import {
  annotationChanges,
  nodePatch,
  withoutTaint,
  withTaint,
} from '../../../../lib/adapters/kubernetes/taints.js';
import type { Taint } from '../../../../lib/ports/cluster.js';

const NOW = new Date('2026-03-01T10:10:00.123Z');
const OUT_OF_SERVICE: Taint = {
  key: 'node.kubernetes.io/out-of-service',
  value: 'nodeshutdown',
  effect: 'NoExecute',
};
const UNREACHABLE_EXECUTE: Taint = {
  key: 'node.kubernetes.io/unreachable',
  effect: 'NoExecute',
  timeAdded: '2026-03-01T10:05:00Z',
};
const UNREACHABLE_SCHEDULE: Taint = { key: 'node.kubernetes.io/unreachable', effect: 'NoSchedule' };
const DEDICATED: Taint = { key: 'dedicated', value: 'db', effect: 'NoSchedule' };
const OTHERS = [UNREACHABLE_SCHEDULE, UNREACHABLE_EXECUTE, DEDICATED];

describe('withTaint', () => {
  it('appends the taint and keeps every other taint exactly as it was', () => {
    // Act
    const taints = withTaint(OTHERS, OUT_OF_SERVICE, NOW);

    // Assess
    expect(taints).toStrictEqual([...OTHERS, { ...OUT_OF_SERVICE, timeAdded: '2026-03-01T10:10:00Z' }]);
  });

  it('is idempotent: a second add finds the taint present and changes nothing', () => {
    // Prepare
    const once = withTaint(OTHERS, OUT_OF_SERVICE, NOW) ?? [];

    // Act
    const twice = withTaint(once, OUT_OF_SERVICE, NOW);

    // Assess
    expect(twice).toBeUndefined();
  });

  it("never overwrites someone else's taint with the same key and effect", () => {
    // Prepare
    const theirs: Taint = { ...OUT_OF_SERVICE, value: 'manual' };

    // Act
    const taints = withTaint([theirs], OUT_OF_SERVICE, NOW);

    // Assess
    expect(taints).toBeUndefined();
  });

  it('adds a taint whose key exists only with another effect', () => {
    // Act
    const taints = withTaint([{ ...OUT_OF_SERVICE, effect: 'NoSchedule' }], OUT_OF_SERVICE, NOW);

    // Assess
    expect(taints).toHaveLength(2);
  });

  it('keeps a given timeAdded and stamps none on a NoSchedule taint', () => {
    // Act
    const given = withTaint([], { ...OUT_OF_SERVICE, timeAdded: '2026-01-01T00:00:00Z' }, NOW);
    const schedule = withTaint([], DEDICATED, NOW);

    // Assess
    expect(given).toStrictEqual([{ ...OUT_OF_SERVICE, timeAdded: '2026-01-01T00:00:00Z' }]);
    expect(schedule).toStrictEqual([DEDICATED]);
  });
});

describe('withoutTaint', () => {
  const OURS = { ...OUT_OF_SERVICE, timeAdded: '2026-01-01T00:00:00Z' };

  it('removes exactly that taint and keeps every other', () => {
    // Act
    const taints = withoutTaint([...OTHERS, OURS], OURS);

    // Assess
    expect(taints).toStrictEqual(OTHERS);
  });

  it('keeps a taint with the same key that differs in value, effect or timeAdded', () => {
    // Arrange
    const lookalikes = [
      { ...OURS, value: 'maintenance' },
      { ...OURS, effect: 'NoSchedule' as const },
      { ...OURS, timeAdded: '2026-01-01T00:05:00Z' },
    ];

    // Act
    const taints = lookalikes.map((taint) => withoutTaint([taint], OURS));

    // Assess
    expect(taints).toStrictEqual([undefined, undefined, undefined]);
  });

  it('matches timeAdded to the second, as the API server stores it', () => {
    // Act
    const taints = withoutTaint([{ ...OURS, timeAdded: '2026-01-01T00:00:00.000Z' }], OURS);

    // Assess
    expect(taints).toStrictEqual([]);
  });

  it('is idempotent: removing an absent taint changes nothing', () => {
    // Act
    const taints = withoutTaint(OTHERS, OURS);

    // Assess
    expect(taints).toBeUndefined();
  });
});

describe('annotationChanges', () => {
  it('keeps only what differs: new or changed values, and deletions of present keys', () => {
    // Act
    const changes = annotationChanges(
      { same: 'x', changed: 'old', doomed: 'y' },
      { same: 'x', changed: 'new', added: 'z', doomed: null, absent: null },
    );

    // Assess
    expect(changes).toStrictEqual({ changed: 'new', added: 'z', doomed: null });
  });

  it('is empty when the node already says it all', () => {
    expect(annotationChanges({ a: '1' }, { a: '1', b: null })).toStrictEqual({});
  });
});

describe('nodePatch', () => {
  it('carries the resourceVersion read, the whole taint list and the annotation changes', () => {
    // Act
    const patch = nodePatch(
      { resourceVersion: '42' },
      { taints: [DEDICATED], annotations: { a: '1', b: null } },
    );

    // Assess
    expect(patch).toStrictEqual({
      metadata: { resourceVersion: '42', annotations: { a: '1', b: null } },
      spec: { taints: [{ key: 'dedicated', value: 'db', effect: 'NoSchedule' }] },
    });
  });

  it('sends an empty taint list when the last taint goes, and no annotations when none change', () => {
    // Act
    const patch = nodePatch({ resourceVersion: '7' }, { taints: [], annotations: {} });

    // Assess
    expect(patch).toStrictEqual({ metadata: { resourceVersion: '7' }, spec: { taints: [] } });
  });

  it('leaves the taints alone when only annotations change', () => {
    expect(nodePatch({ resourceVersion: '7' }, { annotations: { a: '1' } })).toStrictEqual({
      metadata: { resourceVersion: '7', annotations: { a: '1' } },
    });
  });
});
