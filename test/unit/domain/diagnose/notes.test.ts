import { describe, expect, it } from 'vitest';
import { volumeNotes } from '../../../../lib/domain/diagnose/notes.js';

describe('volumeNotes', () => {
  it('explains that RWX file systems have no exclusive attach', () => {
    const notes = volumeNotes({ name: 'nfs-1', accessModes: ['ReadWriteMany'], zones: [], nodeBound: false });
    expect(notes.join(' ')).toContain('no Multi-Attach error');
  });

  it('explains that a Local PV never moves', () => {
    const notes = volumeNotes({
      name: 'local-1',
      accessModes: ['ReadWriteOnce'],
      zones: [],
      nodeBound: true,
      nodeNames: ['node-c'],
    });
    expect(notes.join(' ')).toContain('never moves');
  });

  it('says nothing special about a ReadWriteOnce volume without zones', () => {
    expect(
      volumeNotes({ name: 'rbd-1', accessModes: ['ReadWriteOnce'], zones: [], nodeBound: false }),
    ).toEqual([]);
  });
});
