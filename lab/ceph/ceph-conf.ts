/**
 * The lab cluster's ceph.conf: one mon, one mgr, one memstore OSD, every path inside the run's folder
 * (nothing in /etc/ceph or /var/lib/ceph), pools of size 1, and no warnings a one-OSD cluster would
 * raise forever (so HEALTH_OK means ready).
 */

/** Where the daemons listen: the host end of the lab's bridge. */
export interface CephConfOptions {
  readonly fsid: string;
  /** The run's Ceph folder. */
  readonly dir: string;
  /** The lab's log folder: daemon logs sit beside the other components'. */
  readonly logDir: string;
  readonly hostIp: string;
  readonly monPorts: { readonly v2: number; readonly v1: number };
  /** How long an OSD keeps a silent client's watch (Ceph's default: 30 s). */
  readonly watchTimeoutSeconds: number;
}

/** The mon address in Ceph's vector form. */
export const monAddrs = (o: Pick<CephConfOptions, 'hostIp' | 'monPorts'>): string =>
  `[v2:${o.hostIp}:${o.monPorts.v2},v1:${o.hostIp}:${o.monPorts.v1}]`;

/** `$name`, `$id` and `$cluster` stay Ceph metavariables; every other path is literal. */
export function cephConf(o: CephConfOptions): string {
  return `[global]
fsid = ${o.fsid}
mon host = ${monAddrs(o)}
public addr = ${o.hostIp}
auth cluster required = cephx
auth service required = cephx
auth client required = cephx
log file = ${o.logDir}/ceph-$name.log
admin socket = ${o.dir}/run/$name.asok
pid file = ${o.dir}/run/$name.pid
run dir = ${o.dir}/run
crash dir = ${o.dir}/crash
osd pool default size = 1
osd pool default min size = 1
osd pool default pg num = 8
osd pool default pgp num = 8
osd pool default pg autoscale mode = off
osd crush chooseleaf type = 0
mon allow pool size one = true
mon allow pool delete = true
mon warn on pool no redundancy = false
mon warn on insecure global id reclaim allowed = false
auth allow insecure global id reclaim = false
mon data avail warn = 2
mon data avail crit = 1
ms bind ipv6 = false
osd client watch timeout = ${o.watchTimeoutSeconds}

[client]
keyring = ${o.dir}/$cluster.$name.keyring

[mon]
keyring = ${o.dir}/mon.$id/keyring
mon data = ${o.dir}/mon.$id
mon cluster log file = ${o.logDir}/ceph-cluster.log

[mgr]
keyring = ${o.dir}/mgr.$id/keyring
mgr data = ${o.dir}/mgr.$id
# Only the restful module (beside the mgr's own helpers): loading all thirty takes the mgr 15-20 s on a
# busy machine. And on bookworm python3-cryptography (PyO3) loads in one mgr sub-interpreter only: the
# dashboard would take it and leave restful broken.
mgr module path = ${o.dir}/mgr-modules
mgr initial modules = restful
mgr disabled modules = dashboard diskprediction_local

[osd]
keyring = ${o.dir}/osd.$id/keyring
osd data = ${o.dir}/osd.$id
osd objectstore = memstore
memstore device bytes = 536870912
osd memory target = 939524096
`;
}
