/** How the kind of volume changes the story, as the README's incident explains. */
import type { PvFact } from './model.js';

const RWX = new Set(['ReadWriteMany', 'ReadOnlyMany']);

/** Notes for one PV: RWX file systems have no exclusive attach; Local PVs never move. */
export function volumeNotes(pv: PvFact): string[] {
  const notes: string[] = [];
  if (pv.accessModes.some((m) => RWX.has(m)) && !pv.accessModes.includes('ReadWriteOnce')) {
    notes.push(
      `${pv.name} is ${pv.accessModes.join('/')}: a shared file system (NFS, CephFS) that many nodes mount at once. ` +
        'There is no exclusive attach, so no Multi-Attach error and nothing for fencing to release.',
    );
  }
  if (pv.nodeBound) {
    notes.push(
      `${pv.name} is a Local PV pinned to ${pv.nodeNames?.join(', ') || 'one node'} by node affinity: its pod never moves ` +
        'to another node and stays Pending until that node returns. Use Local PVs only for applications that replicate ' +
        'their own data (Elasticsearch, TiKV).',
    );
  }
  if (pv.zones.length > 0 && !pv.nodeBound) {
    notes.push(
      `${pv.name} is zonal (${pv.zones.join(', ')}): it can only attach to nodes in that zone. If the whole zone is lost, ` +
        'only application-level replication helps; StorageClasses should use WaitForFirstConsumer.',
    );
  }
  return notes;
}
