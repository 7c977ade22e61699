/**
 * The two cheap node reads of the triggers: every node's readiness as a server-side Table (one row of a
 * few hundred bytes per node instead of the object's several kilobytes; `kubectl get nodes` reads the
 * same), and every node's providerID, mapped page by page to a name and an id.
 */
import type { V1Node } from '@kubernetes/client-node';
import type { NodeProviderId, NodeReadiness } from '../../ports/cluster.js';
import { apiPaths } from './api/paths.js';
import { listMapped, type RawLister, type RawPage, ReadConsistency } from './raw-list.js';

/** A Table of rows without their objects (`includeObject=None`): only the printed columns. */
const TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io';
/** Table rows are small; at 5,000 nodes one page is under a megabyte. */
const ROWS_PER_PAGE = 5000;

interface TablePage extends RawPage {
  readonly kind?: string;
  readonly columnDefinitions?: readonly { readonly name: string }[];
  readonly rows?: readonly { readonly cells?: readonly unknown[] }[];
}

/** Thrown when the API server's node Table lacks the columns readiness is read from. */
export class NodeTableError extends Error {
  override readonly name = 'NodeTableError';
}

/** The column indexes of Name and Status, from the first page that defines them. */
function columnsOf(page: TablePage): { name: number; status: number } {
  const names = (page.columnDefinitions ?? []).map((c) => c.name);
  const name = names.indexOf('Name');
  const status = names.indexOf('Status');
  if (page.kind !== 'Table' || name < 0 || status < 0) {
    throw new NodeTableError(
      `the API server answered the node list without a Table of Name and Status (kind ${page.kind}, columns ${names.join(', ')})`,
    );
  }
  return { name, status };
}

/**
 * Every node's name and readiness. The node printer's Status is `Ready`, `NotReady` or `Unknown`,
 * followed by `,SchedulingDisabled` when cordoned: only a leading `Ready` is a True Ready condition.
 *
 * Served from the watch cache (`resourceVersion=0`, one response whatever the limit): staleness is
 * safe here because nothing is decided on this read alone. Every node it shows NotReady is read
 * again (a consistent GET) before anything is done about it, and a node that turned NotReady a moment
 * ago is seen by the next check; the fencing step re-checks the blast radius with a consistent list.
 */
export function listNodeReadiness(lister: RawLister): Promise<NodeReadiness[]> {
  let columns: { name: number; status: number } | undefined;
  const fetchPage = async (token: string | undefined): Promise<RawPage> => {
    const page = await lister.page<TablePage>(apiPaths.nodes, { includeObject: 'None' }, token, {
      consistency: ReadConsistency.Cached,
      accept: TABLE,
      pageSize: ROWS_PER_PAGE,
    });
    columns ??= columnsOf(page);
    return { items: page.rows ?? [], metadata: page.metadata ?? {} };
  };
  return listMapped('listNode', apiPaths.nodes, fetchPage, (row: { cells?: readonly unknown[] }) => {
    const cells = row.cells ?? [];
    const status = String(cells[columns?.status ?? -1] ?? '');
    return { name: String(cells[columns?.name ?? -1] ?? ''), ready: status.split(',')[0] === 'Ready' };
  });
}

/**
 * Every node's name and providerID, page by page; nothing else of the node is kept. Consistent (no
 * resourceVersion): a router's index names the nodes it then reads afresh, and a node the watch cache
 * had not seen yet would be a missed incident.
 */
export function listNodeProviderIds(lister: RawLister): Promise<NodeProviderId[]> {
  return lister.list('listNode', apiPaths.nodes, {}, (node: V1Node) => ({
    name: node.metadata?.name ?? '',
    ...(node.spec?.providerID ? { providerId: node.spec.providerID } : {}),
  }));
}
