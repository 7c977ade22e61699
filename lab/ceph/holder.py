"""A node's RBD client in the lab: the userspace stand-in for a krbd mapping (the lab has no kernel rbd).

Run inside the node's network namespace, as the node's cephx user:

  ip netns exec <netns> /usr/bin/python3 holder.py CONF NODE POOL IMAGE INTERVAL_MS

Opens the image (which registers a watch on its header, what ceph-csi's "still being used" check
sees), takes the exclusive lock explicitly (so it never hands the lock over, as a mapped filesystem
would not), then writes 4 KiB at offset 0 every INTERVAL_MS and reports each result. One JSON line
per event on stdout:

  {"event": "connected", "addr": "...", "client": 4156, "t": ...}
  {"event": "locked", "t": ...}            or {"event": "lock-failed", "errno": 30, "error": "...", "t": ...}
  {"event": "write", "n": 3, "ok": true, "started": ..., "t": ...}
  {"event": "write", "n": 4, "ok": false, "errno": 108, "error": "ConnectionShutdown(...)", "started": ..., "t": ...}

A blocklisted client's writes fail with errno 108 (ESHUTDOWN, Ceph's EBLOCKLISTED) and it keeps
trying, like a zombie node's kernel would. SIGTERM unmaps cleanly (lock and watch released); SIGKILL
is a crash (the watch stays until the OSD times it out).
"""
import json
import signal
import sys
import time

import rados
import rbd

stopping = False


def emit(event, **fields):
    sys.stdout.write(json.dumps({'event': event, 't': time.time(), **fields}) + '\n')
    sys.stdout.flush()


def failure(error):
    return {'errno': getattr(error, 'errno', None), 'error': repr(error)}


def on_term(signum, frame):
    global stopping
    stopping = True


def main():
    conf, node, pool, name, interval_ms = sys.argv[1:6]
    signal.signal(signal.SIGTERM, on_term)
    cluster = rados.Rados(conffile=conf, name='client.' + node)
    cluster.connect(timeout=15)
    emit('connected', addr=cluster.get_addrs(), client=cluster.get_instance_id())
    try:
        ioctx = cluster.open_ioctx(pool)
        image = rbd.Image(ioctx, name)
    except (rados.Error, rbd.Error) as error:  # e.g. this address is blocklisted: errno 108
        emit('open-failed', **failure(error))
        sys.exit(4)
    emit('opened')
    try:
        image.lock_acquire(rbd.RBD_LOCK_MODE_EXCLUSIVE)
        emit('locked')
    except rbd.Error as error:
        emit('lock-failed', **failure(error))
        image.close()
        cluster.shutdown()
        sys.exit(3)
    n = 0
    while not stopping:
        started = time.time()
        payload = json.dumps({'node': node, 'n': n, 't': started}).encode().ljust(4096, b' ')
        try:
            image.write(payload, 0)
            emit('write', n=n, ok=True, started=started)
        except rbd.Error as error:
            emit('write', n=n, ok=False, started=started, **failure(error))
        n += 1
        time.sleep(int(interval_ms) / 1000)
    try:
        image.close()  # releases the lock and the watch: an orderly unmount
        cluster.shutdown()
        emit('released')
    except Exception as error:  # a blocklisted client cannot release anything
        emit('release-failed', **failure(error))


if __name__ == '__main__':
    main()
