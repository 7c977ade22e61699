/**
 * When the controller's health check is due: once per NotReady node when it passes the threshold, and
 * never again for the same NotReady spell, whatever else about the node changes (a loop that woke on
 * each change would poll the API server once a second for as long as the node stays down).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DueNodes } from '../../../../lib/app/controller/due-nodes.js';
import type { NodeView } from '../../../../lib/ports/cluster.js';

const T0 = Date.parse('2026-12-05T10:00:00.000Z');
const node = (
  ready: NodeView['ready'],
  readySince?: number,
  annotations: Record<string, string> = {},
): NodeView => ({
  name: 'node-a',
  uid: 'uid-a',
  resourceVersion: '1',
  createdAt: '2026-12-05T08:00:00.000Z',
  addresses: [],
  ready,
  ...(readySince === undefined ? {} : { readySince: new Date(readySince).toISOString() }),
  unschedulable: false,
  labels: {},
  annotations,
  taints: [],
});

describe('DueNodes', () => {
  it('is due when a NotReady node passes the threshold, counted from its Ready condition’s change', () => {
    const due = new DueNodes(60);
    expect(due.untilNext(T0)).toBe(Number.POSITIVE_INFINITY);
    expect(due.seen('node-a', node('Unknown', T0), T0 + 5000)).toBe(true);
    expect(due.untilNext(T0 + 5000)).toBe(55_000);
  });

  it('after a look, other changes to the node make nothing due; a new NotReady spell does (property)', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({ afterMs: fc.integer({ min: 0, max: 120_000 }), note: fc.string({ maxLength: 4 }) }),
          {
            maxLength: 30,
          },
        ),
        (changes) => {
          const due = new DueNodes(60);
          due.seen('node-a', node('Unknown', T0), T0);
          due.looked(T0 + 60_000);
          let now = T0 + 60_000;
          for (const c of changes) {
            now += c.afterMs;
            expect(due.seen('node-a', node('Unknown', T0, { note: c.note }), now)).toBe(false);
            expect(due.untilNext(now)).toBe(Number.POSITIVE_INFINITY);
          }
          // Ready, then NotReady again: a new spell, due at its own threshold.
          expect(due.seen('node-a', node('True', now), now)).toBe(true);
          expect(due.seen('node-a', node('Unknown', now + 1000), now + 1000)).toBe(true);
          expect(due.untilNext(now + 1000)).toBe(60_000);
        },
      ),
    );
  });

  it('takes the first sighting for a node that says nothing of when it turned NotReady, and keeps it', () => {
    const due = new DueNodes(60);
    expect(due.seen('node-a', node('Unknown'), T0)).toBe(true);
    expect(due.seen('node-a', node('Unknown'), T0 + 30_000)).toBe(false);
    expect(due.untilNext(T0 + 30_000)).toBe(30_000);
  });

  it('forgets a node that is Ready again or deleted, and says so', () => {
    const due = new DueNodes(60);
    due.seen('node-a', node('False', T0), T0);
    expect(due.seen('node-a', null, T0 + 1)).toBe(true);
    expect(due.has('node-a')).toBe(false);
    expect(due.seen('node-a', node('True', T0), T0 + 2)).toBe(false);
    expect(due.untilNext(T0 + 2)).toBe(Number.POSITIVE_INFINITY);
  });
});
