/**
 * Answers recorded from the lab's Ceph 16.2.15 (Pacific) through the mgr `restful` API, trimmed to what
 * the tests read. The command table keeps only the blocklist commands (the full one is 155 kB).
 */

/** `osd blocklist ls -f json`: addresses, then ranges, two arrays back to back (IPv6 included). */
export const BLOCKLIST_OUTB =
  '[{"addr":"10.9.9.8:0/0","until":"2026-11-30T21:07:57.496603+0000"},{"addr":"[fd00::6]:0/0","until":"2026-11-30T21:07:55.444152+0000"},{"addr":"10.77.0.2:0/2976520395","until":"2026-11-30T19:38:05.713522+0000"}]' +
  '[{"range":"10.9.8.5:0/24","until":"2026-11-30T21:09:04.364509+0000"},{"range":"[fd00::5]:0/128","until":"2026-11-30T21:07:54.687902+0000"}]';

/** The same with nothing listed. */
export const EMPTY_BLOCKLIST_OUTB = '[][]';

/** `get_command_descriptions` of 16.2.15: `osd blocklist` takes a `range` argument. */
export const PACIFIC_RANGE_COMMANDS = JSON.stringify({
  cmd000: { sig: ['pg', 'stat'], help: 'show placement group status.', module: 'pg', perm: 'r', flags: 8 },
  cmd507: {
    sig: [
      'osd',
      'blocklist',
      { goodchars: '[range]', name: 'range', req: 'false', type: 'CephString' },
      { name: 'blocklistop', strings: 'add|rm', type: 'CephChoices' },
      { name: 'addr', type: 'CephEntityAddr' },
      { name: 'expire', range: '0.0', req: 'false', type: 'CephFloat' },
    ],
    perm: 'rw',
    flags: 0,
  },
  cmd508: { sig: ['osd', 'blocklist', 'ls'], perm: 'r', flags: 0 },
  cmd510: {
    sig: [
      'osd',
      'blacklist',
      { name: 'blacklistop', strings: 'add|rm', type: 'CephChoices' },
      { name: 'addr', type: 'CephEntityAddr' },
      { name: 'expire', range: '0.0', req: 'false', type: 'CephFloat' },
    ],
    perm: 'rw',
    flags: 4,
  },
});

/** A Pacific before the range backport: the same table without the `range` argument. */
export const PACIFIC_NO_RANGE_COMMANDS = JSON.stringify({
  cmd507: {
    sig: [
      'osd',
      'blocklist',
      { name: 'blocklistop', strings: 'add|rm', type: 'CephChoices' },
      { name: 'addr', type: 'CephEntityAddr' },
      { name: 'expire', range: '0.0', req: 'false', type: 'CephFloat' },
    ],
  },
});

/** Octopus and older: only `osd blacklist`. */
export const OCTOPUS_COMMANDS = JSON.stringify({
  cmd400: {
    sig: [
      'osd',
      'blacklist',
      { name: 'blacklistop', strings: 'add|rm', type: 'CephChoices' },
      { name: 'addr', type: 'CephEntityAddr' },
    ],
  },
});

/** `POST /request?wait=1` answers, verbatim shapes. */
export const ANSWER_SUCCESS = (outb: string, outs: string) =>
  JSON.stringify({
    failed: [],
    finished: [{ command: 'osd blocklist ls format=json', outb, outs }],
    has_failed: false,
    id: '139913576525584',
    is_finished: true,
    is_waiting: false,
    running: [],
    state: 'success',
    waiting: [],
  });

export const ANSWER_FAILED_EXPIRE = JSON.stringify({
  state: 'failed',
  id: '139913576525999',
  finished: [],
  failed: [
    {
      command: 'osd blocklist range=range blocklistop=add addr=10.77.0.2/32 expire=86400',
      outb: '',
      outs: "bad or missing field 'expire'",
    },
  ],
});

/** `mon dump -f json` of a one-mon cluster in the shape 16.2 prints (v2 and v1 in its address vector). */
export const MON_DUMP_OUTB = JSON.stringify({
  epoch: 2,
  fsid: '3f1e0c2a-0000-4000-8000-000000000001',
  min_mon_release_name: 'pacific',
  mons: [
    {
      rank: 0,
      name: 'a',
      public_addrs: {
        addrvec: [
          { type: 'v2', addr: '10.77.0.1:13300', nonce: 0 },
          { type: 'v1', addr: '10.77.0.1:16789', nonce: 0 },
        ],
      },
      addr: '10.77.0.1:16789/0',
      public_addr: '10.77.0.1:16789/0',
      priority: 0,
      weight: 0,
    },
    {
      rank: 1,
      name: 'b',
      public_addrs: { addrvec: [{ type: 'v2', addr: '[fd00::7]:3300', nonce: 0 }] },
      addr: '[fd00::7]:6789/0',
      public_addr: '[fd00::7]:6789/0',
    },
  ],
  quorum: [0, 1],
});
