/**
 * `fencer demo --storage rbd`, run as a newcomer runs it: it starts its own lab with a real Ceph,
 * replays the RBD incident (the replacement stuck on node-b while the cut node's client keeps writing;
 * the taint alone would leave it on `still being used`), cures it with `fencer fence` (the storage
 * fence before the taint), prints each line as it happens and exits 0.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../lab/paths.js';

describe('fencer demo --storage rbd', () => {
  it('replays the RBD incident: the zombie keeps writing, the storage fence refuses its writes, the replacement Running', async () => {
    const child = spawn(process.execPath, [join('bin', 'fencer.js'), 'demo', '--storage', 'rbd'], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    const [code] = await once(child, 'exit');

    expect(code, out).toBe(0);
    expect(out).toContain('a Ceph cluster (mon, mgr, OSD)');
    // In the order a newcomer reads them.
    const lines = [
      /ceph\s+node-a's librbd client \([\d.]+\) holds rbd\/\S+: exclusive lock and watch/,
      /Warning FailedAttachVolume: Multi-Attach error/,
      /node-a's client still watches rbd\/\S+ and wrote [1-9]\d* times since the cut: the out-of-service taint alone would move the pod, not the lock, and leave db-0 on node-b stuck on `rbd image rbd\/\S+ is still being used`/,
      /runs: fencer fence node-a/,
      /fencer\s+StorageFence: /,
      /fencer\s+\S+: .*taint/i,
      /node-a's client is blocklisted: its writes fail \(errno 108, ESHUTDOWN\)/,
      /db-0 is Running on node-b, its client holding the lock: recovered [\d.]+ s after the cure began/,
      /The replacement pod was stuck while node-a's client held the image \(the taint alone leaves it on `still being used`\); after the storage fence it ran [\d.]+ s after the cure began\./,
    ];
    let from = 0;
    for (const line of lines) {
      const at = out.slice(from).search(line);
      expect(at, `${line} after offset ${from} in:\n${out}`).toBeGreaterThanOrEqual(0);
      from += at;
    }
  });
});
