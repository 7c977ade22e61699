import { DescribeInstancesCommand, DescribeVolumesCommand, type EC2Client } from '@aws-sdk/client-ec2';
import {
  CoreV1Api,
  type CoreV1Event,
  type Informer,
  type KubeConfig,
  type KubernetesListObject,
  type KubernetesObject,
  makeInformer,
  StorageV1Api,
  type V1Node,
  type V1Pod,
  type V1VolumeAttachment,
} from '@kubernetes/client-node';

/** One thing that happened to one object. */
export interface TimelineEntry {
  readonly at: Date;
  /** e.g. `node/node-a`, `pod/db-0 (4f2c)`, `volumeattachment/csi-1a2b…`, `ec2/i-0abc…`, `operator`. */
  readonly object: string;
  readonly what: string;
}

export type Snapshot = Record<string, string>;

/** What an object looked like from `at` on (`null`: deleted), for drawing the incident (timeline-picture.ts). */
export interface ObjectState {
  readonly at: Date;
  readonly object: string;
  readonly snapshot: Snapshot | null;
}

const shortUid = (uid?: string): string => (uid ? uid.slice(0, 4) : '????');

function describeNode(o: V1Node): Snapshot {
  const ready = o.status?.conditions?.find((c) => c.type === 'Ready');
  const taints = (o.spec?.taints ?? [])
    .map((t) => `${t.key}${t.value ? `=${t.value}` : ''}:${t.effect}`)
    .sort();
  return { Ready: ready?.status ?? 'none', taints: taints.join(', ') || 'none' };
}

function describePod(o: V1Pod): Snapshot {
  const waiting = o.status?.containerStatuses?.find((c) => c.state?.waiting)?.state?.waiting?.reason;
  return {
    node: o.spec?.nodeName ?? 'unscheduled',
    phase: waiting ? `${o.status?.phase} (${waiting})` : (o.status?.phase ?? 'Pending'),
    deleting: o.metadata?.deletionTimestamp ? 'Terminating' : 'no',
  };
}

function describeVa(o: V1VolumeAttachment): Snapshot {
  return {
    node: o.spec?.nodeName,
    attached: String(o.status?.attached ?? false),
    attachError: o.status?.attachError?.message ?? 'none',
    deleting: o.metadata?.deletionTimestamp ? 'yes' : 'no',
  };
}

/** What the cloud's machines and disks look like now, by timeline key (`ec2/i-…`, `ecs/i-…`, `disk/d-…`). */
export type CloudWatcher = () => Promise<[string, Snapshot][]>;

/** EC2 instances and EBS volumes, as the EC2 emulator shows them. */
export const ec2Watcher =
  (ec2: EC2Client): CloudWatcher =>
  async () => {
    const [instances, volumes] = await Promise.all([
      ec2.send(new DescribeInstancesCommand({})),
      ec2.send(new DescribeVolumesCommand({})),
    ]);
    const seen: [string, Snapshot][] = [];
    for (const r of instances.Reservations ?? []) {
      for (const i of r.Instances ?? []) {
        const name = i.Tags?.find((t) => t.Key === 'Name')?.Value;
        seen.push([`ec2/${i.InstanceId}${name ? ` (${name})` : ''}`, { state: i.State?.Name ?? '?' }]);
      }
    }
    for (const v of volumes.Volumes ?? []) {
      const att = (v.Attachments ?? []).map((a) => `${a.InstanceId}:${a.State}`).join(',') || 'none';
      seen.push([`ebs/${v.VolumeId}`, { attachments: att }]);
    }
    return seen;
  };

/**
 * Records what happens to nodes, pods, VolumeAttachments, events and EC2 instances/volumes while
 * an incident plays out, and prints it as a readable timeline.
 */
export class Timeline {
  readonly entries: TimelineEntry[] = [];
  readonly states: ObjectState[] = [];
  private readonly started = new Date();
  private readonly last = new Map<string, Snapshot>();
  private readonly informers: Informer<KubernetesObject>[] = [];
  private stopped = false;
  private poller: NodeJS.Timeout | undefined;
  private readonly seenEvents = new Set<string>();

  constructor(
    private readonly kc: KubeConfig,
    private readonly cloud: CloudWatcher,
    private readonly echo?: (line: string) => void,
  ) {}

  note(object: string, what: string): void {
    const entry = { at: new Date(), object, what };
    this.entries.push(entry);
    this.echo?.(this.format(entry));
  }

  async start(namespace = 'default'): Promise<void> {
    const core = this.kc.makeApiClient(CoreV1Api);
    const storage = this.kc.makeApiClient(StorageV1Api);
    const follow = async <T extends KubernetesObject>(
      path: string,
      list: () => Promise<KubernetesListObject<T>>,
      key: (o: T) => string,
      describe: (o: T) => Snapshot,
    ) => {
      // An informer re-lists and re-watches when a watch ends, so no change is missed.
      const informer = makeInformer(this.kc, path, list);
      informer.on('add', (o) => this.observe(key(o), describe(o)));
      informer.on('update', (o) => this.observe(key(o), describe(o)));
      informer.on('delete', (o) => this.observe(key(o), null));
      informer.on('error', () => {
        if (!this.stopped) setTimeout(() => void informer.start().catch(() => {}), 1000);
      });
      await informer.start();
      this.informers.push(informer);
    };
    await follow<V1Node>(
      '/api/v1/nodes',
      () => core.listNode(),
      (o) => `node/${o.metadata?.name}`,
      describeNode,
    );
    await follow<V1Pod>(
      `/api/v1/namespaces/${namespace}/pods`,
      () => core.listNamespacedPod({ namespace }),
      (o) => `pod/${o.metadata?.name} (${shortUid(o.metadata?.uid)})`,
      describePod,
    );
    await follow<V1VolumeAttachment>(
      '/apis/storage.k8s.io/v1/volumeattachments',
      () => storage.listVolumeAttachment(),
      (o) => `volumeattachment/${o.metadata?.name?.slice(0, 12)}…`,
      describeVa,
    );
    const events = makeInformer(this.kc, `/api/v1/namespaces/${namespace}/events`, () =>
      core.listNamespacedEvent({ namespace }),
    );
    events.on('add', (e) => this.observeEvent(e));
    events.on('update', (e) => this.observeEvent(e));
    await events.start();
    this.informers.push(events);
    this.poller = setInterval(() => void this.pollCloud(), 500);
  }

  stop(): void {
    this.stopped = true;
    for (const i of this.informers.splice(0)) void i.stop();
    clearInterval(this.poller);
  }

  private observe(key: string, now: Snapshot | null): void {
    const before = this.last.get(key);
    if (now !== null || before) this.states.push({ at: new Date(), object: key, snapshot: now });
    if (now === null) {
      if (before) this.note(key, 'deleted');
      this.last.delete(key);
      return;
    }
    this.last.set(key, now);
    if (!before) {
      this.note(
        key,
        `created: ${Object.entries(now)
          .map(([k, v]) => `${k}=${v}`)
          .join(', ')}`,
      );
      return;
    }
    const changes = Object.keys(now)
      .filter((k) => now[k] !== before[k])
      .map((k) => `${k} ${before[k]} → ${now[k]}`);
    if (changes.length > 0) this.note(key, changes.join('; '));
  }

  private observeEvent(e: CoreV1Event): void {
    if (
      e.type !== 'Warning' &&
      !['FailedAttachVolume', 'SuccessfulAttachVolume', 'TaintManagerEviction'].includes(e.reason ?? '')
    )
      return;
    const id = `${e.involvedObject?.name}/${e.reason}/${e.message}`;
    if (this.seenEvents.has(id)) return;
    this.seenEvents.add(id);
    this.note(
      `event on ${e.involvedObject?.kind?.toLowerCase()}/${e.involvedObject?.name}`,
      `${e.type} ${e.reason}: ${e.message}`,
    );
  }

  private async pollCloud(): Promise<void> {
    try {
      for (const [key, snapshot] of await this.cloud()) this.observe(key, snapshot);
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
