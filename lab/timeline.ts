import { DescribeInstancesCommand, DescribeVolumesCommand, type EC2Client } from '@aws-sdk/client-ec2';
import { type KubeConfig, Watch } from '@kubernetes/client-node';

/** One thing that happened to one object. */
export interface TimelineEntry {
  readonly at: Date;
  /** e.g. `node/node-a`, `pod/db-0 (4f2c)`, `volumeattachment/csi-1a2b…`, `ec2/i-0abc…`, `operator`. */
  readonly object: string;
  readonly what: string;
}

type Snapshot = Record<string, string>;

const shortUid = (uid?: string): string => (uid ? uid.slice(0, 4) : '????');

function describeNode(o: any): Snapshot {
  const ready = o.status?.conditions?.find((c: any) => c.type === 'Ready');
  const taints = (o.spec?.taints ?? []).map((t: any) => `${t.key}${t.value ? `=${t.value}` : ''}:${t.effect}`).sort();
  return { Ready: ready?.status ?? 'none', taints: taints.join(', ') || 'none' };
}

function describePod(o: any): Snapshot {
  const waiting = o.status?.containerStatuses?.find((c: any) => c.state?.waiting)?.state?.waiting?.reason;
  return {
    node: o.spec?.nodeName ?? 'unscheduled',
    phase: waiting ? `${o.status?.phase} (${waiting})` : (o.status?.phase ?? 'Pending'),
    deleting: o.metadata?.deletionTimestamp ? 'Terminating' : 'no',
  };
}

function describeVa(o: any): Snapshot {
  return {
    node: o.spec?.nodeName,
    attached: String(o.status?.attached ?? false),
    attachError: o.status?.attachError?.message ?? 'none',
    deleting: o.metadata?.deletionTimestamp ? 'yes' : 'no',
  };
}

/**
 * Records what happens to nodes, pods, VolumeAttachments, events and EC2 instances/volumes while
 * an incident plays out, and prints it as a readable timeline.
 */
export class Timeline {
  readonly entries: TimelineEntry[] = [];
  private readonly started = new Date();
  private readonly last = new Map<string, Snapshot>();
  private readonly aborts: AbortController[] = [];
  private poller: NodeJS.Timeout | undefined;
  private readonly seenEvents = new Set<string>();

  constructor(
    private readonly kc: KubeConfig,
    private readonly ec2: EC2Client,
    private readonly echo?: (line: string) => void,
  ) {}

  note(object: string, what: string): void {
    const entry = { at: new Date(), object, what };
    this.entries.push(entry);
    this.echo?.(this.format(entry));
  }

  async start(namespace = 'default'): Promise<void> {
    const watch = new Watch(this.kc);
    const follow = async (path: string, key: (o: any) => string, describe: (o: any) => Snapshot) => {
      this.aborts.push(
        await watch.watch(
          path,
          {},
          (phase, o) => this.observe(key(o), phase === 'DELETED' ? null : describe(o)),
          () => {},
        ),
      );
    };
    await follow('/api/v1/nodes', (o) => `node/${o.metadata.name}`, describeNode);
    await follow(`/api/v1/namespaces/${namespace}/pods`, (o) => `pod/${o.metadata.name} (${shortUid(o.metadata.uid)})`, describePod);
    await follow('/apis/storage.k8s.io/v1/volumeattachments', (o) => `volumeattachment/${o.metadata.name.slice(0, 12)}…`, describeVa);
    this.aborts.push(
      await watch.watch(`/api/v1/namespaces/${namespace}/events`, {}, (_phase, e) => this.observeEvent(e), () => {}),
    );
    this.poller = setInterval(() => void this.pollEc2(), 500);
  }

  stop(): void {
    for (const a of this.aborts.splice(0)) a.abort();
    clearInterval(this.poller);
  }

  private observe(key: string, now: Snapshot | null): void {
    const before = this.last.get(key);
    if (now === null) {
      if (before) this.note(key, 'deleted');
      this.last.delete(key);
      return;
    }
    this.last.set(key, now);
    if (!before) {
      this.note(key, `created: ${Object.entries(now).map(([k, v]) => `${k}=${v}`).join(', ')}`);
      return;
    }
    const changes = Object.keys(now)
      .filter((k) => now[k] !== before[k])
      .map((k) => `${k} ${before[k]} → ${now[k]}`);
    if (changes.length > 0) this.note(key, changes.join('; '));
  }

  private observeEvent(e: any): void {
    if (e.type !== 'Warning' && !['FailedAttachVolume', 'SuccessfulAttachVolume', 'TaintManagerEviction'].includes(e.reason)) return;
    const id = `${e.involvedObject?.name}/${e.reason}/${e.message}`;
    if (this.seenEvents.has(id)) return;
    this.seenEvents.add(id);
    this.note(`event on ${e.involvedObject?.kind?.toLowerCase()}/${e.involvedObject?.name}`, `${e.type} ${e.reason}: ${e.message}`);
  }

  private async pollEc2(): Promise<void> {
    try {
      const [instances, volumes] = await Promise.all([
        this.ec2.send(new DescribeInstancesCommand({})),
        this.ec2.send(new DescribeVolumesCommand({})),
      ]);
      for (const r of instances.Reservations ?? []) {
        for (const i of r.Instances ?? []) {
          const name = i.Tags?.find((t) => t.Key === 'Name')?.Value;
          this.observe(`ec2/${i.InstanceId}${name ? ` (${name})` : ''}`, { state: i.State?.Name ?? '?' });
        }
      }
      for (const v of volumes.Volumes ?? []) {
        const att = (v.Attachments ?? []).map((a) => `${a.InstanceId}:${a.State}`).join(',') || 'none';
        this.observe(`ebs/${v.VolumeId}`, { attachments: att });
      }
    } catch {
      // the emulator may already be gone while the lab stops
    }
  }

  format(entry: TimelineEntry): string {
    const t = ((entry.at.getTime() - this.started.getTime()) / 1000).toFixed(1).padStart(6);
    return `+${t}s  ${entry.object.padEnd(40)} ${entry.what}`;
  }

  render(): string {
    return this.entries.map((e) => this.format(e)).join('\n');
  }
}
