"""The lab cluster's admin client: one long-lived librados connection as client.admin.

Each `ceph`/`rbd` command-line call costs a second of Python start-up on a busy machine; the lab makes
dozens while it starts and while tests look at the cluster, so it keeps one connection instead. Reads
one JSON request per line on stdin, answers one JSON line on stdout:

  {"id": 1, "op": "mon", "cmd": {"prefix": "osd stat", "format": "json"}}
  -> {"id": 1, "ok": true, "ret": 0, "outb": "...", "outs": "..."}

Ops: mon, mgr (a command, with optional "inbuf"), pool_init, create_image, watchers, lockers, read.
Run with /usr/bin/python3 (Debian's python3-rados and python3-rbd).
"""
import json
import sys

import rados
import rbd


def main():
    conf, timeout = sys.argv[1], int(sys.argv[2])
    cluster = rados.Rados(conffile=conf, name='client.admin')
    cluster.connect(timeout=timeout)
    reply({'id': 0, 'ok': True, 'event': 'connected', 'fsid': cluster.get_fsid()})
    for line in sys.stdin:
        if line.strip():
            handle(cluster, json.loads(line))


def reply(message):
    sys.stdout.write(json.dumps(message) + '\n')
    sys.stdout.flush()


def handle(cluster, request):
    try:
        result = run(cluster, request)
        reply({'id': request['id'], 'ok': True, **result})
    except rados.Error as error:
        reply({'id': request['id'], 'ok': False, 'errno': getattr(error, 'errno', None), 'error': repr(error)})
    except Exception as error:  # a bad request must not end the admin client
        reply({'id': request['id'], 'ok': False, 'errno': None, 'error': repr(error)})


def command(cluster, send, request):
    inbuf = request.get('inbuf', '').encode()
    cmd = dict(request['cmd'])
    # CephFloat arguments must be JSON reals: json.dumps writes a Python float as one.
    cmd.update({key: float(value) for key, value in request.get('floats', {}).items()})
    ret, outb, outs = send(json.dumps(cmd), inbuf, timeout=request.get('timeout', 30))
    return {'ret': ret, 'outb': outb.decode(errors='replace'), 'outs': outs}


def image(cluster, request, read_only=True):
    ioctx = cluster.open_ioctx(request['pool'])
    # A read-only open registers no watch: looking never makes the image "still being used".
    return ioctx, rbd.Image(ioctx, request['image'], read_only=read_only)


def run(cluster, request):
    op = request['op']
    if op == 'mon':
        return command(cluster, cluster.mon_command, request)
    if op == 'mgr':
        return command(cluster, cluster.mgr_command, request)
    if op == 'pool_init':
        with cluster.open_ioctx(request['pool']) as ioctx:
            rbd.RBD().pool_init(ioctx, False)
        return {}
    if op == 'create_image':
        with cluster.open_ioctx(request['pool']) as ioctx:
            rbd.RBD().create(ioctx, request['image'], request['size'])
        return {}
    ioctx, img = image(cluster, request)
    try:
        if op == 'watchers':
            return {'watchers': [dict(w) for w in img.watchers_list()]}
        if op == 'lockers':
            listed = img.list_lockers() or {'lockers': []}
            return {'lockers': [{'client': c, 'cookie': k, 'addr': a} for c, k, a in listed['lockers']]}
        if op == 'read':
            return {'data': img.read(request.get('offset', 0), request['length']).decode(errors='replace')}
        raise ValueError('unknown op ' + op)
    finally:
        img.close()
        ioctx.close()


if __name__ == '__main__':
    main()
