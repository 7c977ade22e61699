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

  it('writes each note out whole, with the PV’s name, modes, nodes and zones', () => {
    expect(
      volumeNotes({
        name: 'nfs-1',
        accessModes: ['ReadWriteMany', 'ReadOnlyMany'],
        zones: [],
        nodeBound: false,
      }),
    ).toEqual([
      'nfs-1 is ReadWriteMany/ReadOnlyMany: a shared file system (NFS, CephFS) that many nodes mount at once. ' +
        'There is no exclusive attach, so no Multi-Attach error and nothing for fencing to release.',
    ]);
    expect(
      volumeNotes({
        name: 'local-1',
        accessModes: ['ReadWriteOnce'],
        zones: ['us-east-1a'],
        nodeBound: true,
      }),
    ).toEqual([
      'local-1 is a Local PV pinned to one node by node affinity: its pod never moves to another node and stays ' +
        'Pending until that node returns. Use Local PVs only for applications that replicate their own data ' +
        '(Elasticsearch, TiKV).',
    ]);
    expect(
      volumeNotes({
        name: 'ebs-1',
        accessModes: ['ReadWriteOnce'],
        zones: ['us-east-1a', 'us-east-1b'],
        nodeBound: false,
      }),
    ).toEqual([
      'ebs-1 is zonal (us-east-1a, us-east-1b): it can only attach to nodes in that zone. If the whole zone is lost, ' +
        'only application-level replication helps; StorageClasses should use WaitForFirstConsumer.',
    ]);
  });

  it('names the nodes a Local PV is pinned to', () => {
    const [note] = volumeNotes({
      name: 'local-1',
      accessModes: ['ReadWriteOnce'],
      zones: [],
      nodeBound: true,
      nodeNames: ['node-c', 'node-d'],
    });
    expect(note).toMatch(/^local-1 is a Local PV pinned to node-c, node-d by node affinity/);
  });

  it('has no shared-file-system note for a volume that is also ReadWriteOnce', () => {
    expect(
      volumeNotes({
        name: 'x',
        accessModes: ['ReadWriteMany', 'ReadWriteOnce'],
        zones: [],
        nodeBound: false,
      }),
    ).toEqual([]);
    expect(
      volumeNotes({ name: 'x', accessModes: ['ReadOnlyMany'], zones: [], nodeBound: false }),
    ).toHaveLength(1);
  });
});
