import {
  CoordinationV1Api,
  CoreV1Api,
  type KubeConfig,
  PatchStrategy,
  StorageV1Api,
  setHeaderOptions,
  type V1PersistentVolume,
  type V1PersistentVolumeClaim,
  type V1Pod,
  type V1VolumeAttachment,
  Watch,
} from '@kubernetes/client-node';
import { FailedMountRecorder, type NodeStager, type StagedVolume } from './kubelet-staging.js';
import { LAB_VERSIONS } from './versions.js';

/** What a simulated kubelet needs to know about its machine. */
export interface SimulatedNode {
  readonly name: string;
  readonly instanceId: string;
  readonly zone: string;
  readonly region: string;
  readonly providerID: string;
  /** The instance's PrivateIpAddress, posted as the node's `InternalIP`. */
  readonly privateIp: string;
  /** The instance's PrivateDnsName, posted as the node's `InternalDNS` and `Hostname`. */
  readonly privateDnsName: string;
  /** Labels the cloud's node controller adds (e.g. ACK's), over the lab's defaults. */
  readonly labels?: Readonly<Record<string, string>>;
  /** Annotations a real kubelet on that cloud adds (e.g. the CSI node ids). */
  readonly annotations?: Readonly<Record<string, string>>;
  /**
   * `status.addresses` where a kubelet on that cloud posts others than on EC2 (an ACK kubelet: InternalIP
   * and Hostname only). @default nodeAddresses(node)
   */
  readonly addresses?: readonly { readonly type: string; readonly address: string }[];
  /** Topology keys the CSI driver reports for the node. @default ['topology.kubernetes.io/zone'] */
  readonly csiTopologyKeys?: readonly string[];
  /**
   * The kubelet does not post the node's storage-network address (a second NIC, `--node-ip` pinned to
   * the first): its Ceph clients use an address the Node never names.
   */
  readonly storageAddressUnreported?: boolean;
}

/**
 * `status.addresses` as a kubelet on EC2 posts them (the AWS cloud provider's node addresses): the
 * machine's private IP and its private DNS name, which is also the host name.
 */
export const nodeAddresses = (node: Pick<SimulatedNode, 'privateIp' | 'privateDnsName'>) => [
  { type: 'InternalIP', address: node.privateIp },
  { type: 'InternalDNS', address: node.privateDnsName },
  { type: 'Hostname', address: node.privateDnsName },
];

type NodeMode = 'alive' | 'silent';

const strategic = setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch);
const merge = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
const microTime = (d = new Date()): string => d.toISOString().replace('Z', '000Z');
const HEARTBEAT_EVERY_TICKS = 4;
/** What a kubelet's pod workers and volume manager react to: its pods, and the volumes attached for them. */
const WATCHED_PATHS = ['/api/v1/pods', '/apis/storage.k8s.io/v1/volumeattachments'];
/** A burst of changes (a pod created, scheduled, its volume attached) is looked at once. */
const KICK_AFTER_MS = 20;

/**
 * Simulated kubelets for every lab node, in one loop: Lease renewals, node status heartbeats,
 * `volumesInUse`, and pods turning Running once their volumes are attached. The loop runs every
 * second and, as a real kubelet's informers make it, as soon as a pod or a VolumeAttachment changes.
 * A node can be silenced (cut/crash) and brought back (restore); a silent node does nothing at all,
 * like a kubelet that lost the network.
 */
export class KubeletFleet {
  private readonly core: CoreV1Api;
  private readonly coordination: CoordinationV1Api;
  private readonly storage: StorageV1Api;
  private readonly modes = new Map<string, NodeMode>();
  /** How many times each node's machine booted again since it registered. */
  private readonly boots = new Map<string, number>();
  private readonly nodes = new Map<string, SimulatedNode>();
  /** volumesInUse last reported per node, so status is posted on change between heartbeats. */
  private readonly reportedInUse = new Map<string, string>();
  private timer: NodeJS.Timeout | undefined;
  private kickTimer: NodeJS.Timeout | undefined;
  private readonly watches = new Map<string, AbortController>();
  private watching = false;
  private ticks = 0;
  private ticking = false;
  /** How many loops have started: a loop that starts after a node is silenced leaves it alone. */
  private loopsStarted = 0;
  /** A change came while the loop was busy: look again when it ends. */
  private kickedWhileBusy = false;
  private lastError: string | undefined;
  private readonly failedMounts: FailedMountRecorder;

  /** `stager`: a driver whose volumes the node must stage (ceph-csi RBD); its nodes report their InternalIP. */
  constructor(
    private readonly kc: KubeConfig,
    private readonly driverName: string,
    private readonly log: (line: string) => void = () => {},
    private readonly stager?: NodeStager,
  ) {
    this.core = kc.makeApiClient(CoreV1Api);
    this.coordination = kc.makeApiClient(CoordinationV1Api);
    this.storage = kc.makeApiClient(StorageV1Api);
    this.failedMounts = new FailedMountRecorder(kc);
  }

  /** Registers a node as a kubelet does at start-up: Node, CSINode, Lease, Ready status. */
  async register(node: SimulatedNode): Promise<void> {
    this.nodes.set(node.name, node);
    await this.core.createNode({
      body: {
        metadata: {
          name: node.name,
          labels: {
            'kubernetes.io/hostname': node.name,
            'kubernetes.io/os': 'linux',
            'kubernetes.io/arch': 'amd64',
            'node.kubernetes.io/instance-type': 'm5.large',
            'topology.kubernetes.io/zone': node.zone,
            'topology.kubernetes.io/region': node.region,
            ...node.labels,
          },
          // Without it the attach-detach controller leaves this node's volumes to the kubelet.
          annotations: {
            'volumes.kubernetes.io/controller-managed-attach-detach': 'true',
            ...node.annotations,
          },
        },
        // Bare metal: no providerID at all, as a kubelet without a cloud provider registers.
        spec: node.providerID ? { providerID: node.providerID } : {},
      },
    });
    await this.storage.createCSINode({
      body: {
        metadata: { name: node.name },
        spec: {
          drivers: [
            {
              name: this.driverName,
              nodeID: node.instanceId,
              topologyKeys: [...(node.csiTopologyKeys ?? ['topology.kubernetes.io/zone'])],
            },
            // ceph-csi's node plugin registers with the node's name as its node ID.
            ...(this.stager?.addressOf(node.name) ? [{ name: this.stager.driver, nodeID: node.name }] : []),
          ],
        },
      },
    });
    await this.coordination.createNamespacedLease({
      namespace: 'kube-node-lease',
      body: {
        metadata: { name: node.name },
        spec: {
          holderIdentity: node.name,
          leaseDurationSeconds: 40,
          renewTime: microTime() as unknown as Date,
        },
      },
    });
    await this.postStatus(node.name, []);
    this.modes.set(node.name, 'alive');
  }

  start(): void {
    this.timer ??= setInterval(() => void this.tick(true), 1000);
    if (this.watching) return;
    this.watching = true;
    for (const path of WATCHED_PATHS) void this.watchChanges(path);
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    this.watching = false;
    clearTimeout(this.kickTimer);
    this.kickTimer = undefined;
    for (const controller of this.watches.values()) controller.abort();
    this.watches.clear();
    while (this.ticking) await new Promise((r) => setTimeout(r, 50));
  }

  /** Kicks the loop on every change under `path`; a watch that ends is started again while running. */
  private async watchChanges(path: string): Promise<void> {
    const again = () => {
      if (this.watching) setTimeout(() => void this.watchChanges(path), 1000);
    };
    if (!this.watching) return;
    try {
      const controller = await new Watch(this.kc).watch(path, {}, () => this.kick(), again);
      if (this.watching) this.watches.set(path, controller);
      else controller.abort();
    } catch {
      again();
    }
  }

  private kick(): void {
    if (!this.watching || this.kickTimer) return;
    this.kickTimer = setTimeout(() => {
      this.kickTimer = undefined;
      void this.tick(false);
    }, KICK_AFTER_MS);
  }

  /**
   * Stops heartbeats and all pod work on the node, as a network partition does. Resolves once a loop
   * already under way has ended, so nothing of the node's reaches the API server after it: a heartbeat
   * posted late by a slow loop would make the node look alive after the cut.
   */
  async silence(name: string): Promise<void> {
    this.requireNode(name);
    this.modes.set(name, 'silent');
    const underWay = this.loopsStarted;
    while (this.ticking && this.loopsStarted === underWay) await new Promise((r) => setTimeout(r, 50));
  }

  /**
   * Brings a node's kubelet back with nothing mounted yet; `rebooted`: its machine booted again, so it
   * posts a new bootID (what proves a reboot of a node no compute provider knows).
   */
  async revive(name: string, options: { readonly rebooted?: boolean } = {}): Promise<void> {
    this.requireNode(name);
    if (options.rebooted) this.boots.set(name, (this.boots.get(name) ?? 0) + 1);
    this.modes.set(name, 'alive');
    await this.postStatus(name, []);
  }

  isAlive(name: string): boolean {
    return this.modes.get(name) === 'alive';
  }

  get error(): string | undefined {
    return this.lastError;
  }

  private requireNode(name: string): SimulatedNode {
    const node = this.nodes.get(name);
    if (!node) throw new Error(`lab: no simulated node named ${name}`);
    return node;
  }

  /** `timed`: the once-a-second tick (Leases, heartbeats); else a change kicked it (pods only). */
  private async tick(timed: boolean): Promise<void> {
    if (this.ticking) {
      if (!timed) this.kickedWhileBusy = true;
      return;
    }
    this.ticking = true;
    this.loopsStarted++;
    if (timed) this.ticks++;
    try {
      const alive = [...this.nodes.keys()].filter((n) => this.modes.get(n) === 'alive');
      if (alive.length === 0) return;
      if (timed) await Promise.all(alive.map((n) => this.renewLease(n)));
      const [pods, vas, pvcs, pvs] = await Promise.all([
        this.core.listPodForAllNamespaces(),
        this.storage.listVolumeAttachment(),
        this.core.listPersistentVolumeClaimForAllNamespaces(),
        this.core.listPersistentVolume(),
      ]);
      const world = new World(
        pods.items,
        vas.items,
        pvcs.items,
        pvs.items,
        this.driverName,
        this.stager?.driver,
      );
      // A node silenced while this loop was listing is skipped from then on (see syncNode too).
      for (const name of alive) if (this.isAlive(name)) await this.syncNode(name, world, timed);
      this.lastError = undefined;
    } catch (err) {
      const message = (err as Error).message ?? String(err);
      if (message !== this.lastError) this.log(`kubelet-sim: ${message}`);
      this.lastError = message;
    } finally {
      this.ticking = false;
      if (this.kickedWhileBusy) {
        this.kickedWhileBusy = false;
        this.kick();
      }
    }
  }

  private async renewLease(name: string): Promise<void> {
    await this.coordination.patchNamespacedLease(
      {
        name,
        namespace: 'kube-node-lease',
        body: { spec: { renewTime: microTime(), holderIdentity: name } },
      },
      merge,
    );
  }

  private async syncNode(name: string, world: World, timed: boolean): Promise<void> {
    const inUse = new Set<string>();
    const wanted = new Set<string>();
    for (const pod of world.podsOn(name)) {
      const ns = pod.metadata?.namespace ?? 'default';
      const podName = pod.metadata?.name ?? '';
      if (pod.metadata?.deletionTimestamp) {
        // A live kubelet stops the containers, unmounts, and confirms the deletion.
        await this.unstageAll(name, world.stagedVolumes(pod));
        await this.core
          .deleteNamespacedPod({ name: podName, namespace: ns, gracePeriodSeconds: 0 })
          .catch(() => {});
        continue;
      }
      const volumes = world.uniqueVolumeNames(pod);
      const attached = volumes.every((v) => world.isAttached(v.pv, name));
      if (attached) for (const v of volumes) inUse.add(v.unique);
      for (const v of world.stagedVolumes(pod)) wanted.add(v.pv);
      const staged = attached && (await this.stageAll(pod, name, world.stagedVolumes(pod)));
      if (staged && pod.status?.phase !== 'Running') await this.markRunning(pod);
      if (!staged && !pod.status?.containerStatuses) await this.markContainerCreating(pod);
    }
    // Volumes no pod on this node uses any more (deleted while the node was away): unmount them.
    await this.unstageAll(
      name,
      (this.stager?.staged(name) ?? []).filter((v) => !wanted.has(v.pv)),
    );
    // Staging can take seconds on a busy machine: a node silenced meanwhile posts nothing more.
    if (!this.isAlive(name)) return;
    const heartbeat = timed && this.ticks % HEARTBEAT_EVERY_TICKS === 0;
    const volumesInUse = [...inUse].sort();
    const changed = this.reportedInUse.get(name) !== volumesInUse.join(',');
    if (heartbeat || changed) await this.postStatus(name, volumesInUse);
  }

  /** Stages the pod's volumes of the staged driver; a failure is a FailedMount event on the pod. */
  private async stageAll(pod: V1Pod, node: string, volumes: readonly StagedVolume[]): Promise<boolean> {
    let ready = true;
    for (const volume of volumes) {
      const result = await this.stager?.stage(node, volume);
      if (result?.state === 'failed') await this.failedMounts.record(pod, node, volume, result.message);
      ready &&= result?.state === 'ready';
    }
    return ready;
  }

  private async unstageAll(node: string, volumes: readonly StagedVolume[]): Promise<void> {
    for (const volume of volumes) await this.stager?.unstage(node, volume);
  }

  private async postStatus(name: string, volumesInUse: string[]): Promise<void> {
    const now = new Date().toISOString();
    const node = this.requireNode(name);
    // Strategic merge on conditions (by type) and volumesInUse only: volumesAttached belongs to the
    // attach-detach controller and must never be written here.
    await this.core.patchNodeStatus(
      {
        name,
        body: {
          status: {
            capacity: { cpu: '4', memory: '8Gi', pods: '110' },
            allocatable: { cpu: '4', memory: '8Gi', pods: '110' },
            // Merged by type, so every heartbeat re-asserts the machine's addresses, as a kubelet does.
            addresses: this.addressesOf(node),
            conditions: [
              {
                type: 'Ready',
                status: 'True',
                reason: 'KubeletReady',
                message: 'kubelet is posting ready status',
                lastHeartbeatTime: now,
                lastTransitionTime: now,
              },
            ],
            nodeInfo: {
              kubeletVersion: `v${LAB_VERSIONS.kubernetes}`,
              kubeProxyVersion: '',
              operatingSystem: 'linux',
              architecture: 'amd64',
              containerRuntimeVersion: 'lab://simulated',
              kernelVersion: 'lab',
              osImage: 'kube-fencer lab',
              machineID: name,
              systemUUID: name,
              bootID: `${name}-boot-${this.boots.get(name) ?? 0}`,
            },
            volumesInUse,
          },
        },
      },
      strategic,
    );
    this.reportedInUse.set(name, volumesInUse.join(','));
  }

  /**
   * A node on the staged driver's network (Ceph) has a second address there, which its Ceph clients use:
   * a kubelet on EC2 posts every private IP of the machine as an InternalIP (the lab assigns this one to
   * the instance too). Two entries of one type cannot be merged by type (the API server sees a
   * duplicate), so such a list replaces the old one whole.
   */
  /** The addresses the node's kubelet posts: the cloud's, plus its storage address on a Ceph node. */
  private addressesOf(node: SimulatedNode): object[] {
    const machine = node.addresses ? [...node.addresses] : nodeAddresses(node);
    const storage = this.stager?.addressOf(node.name);
    if (!storage || node.storageAddressUnreported) return machine;
    // Two InternalIPs: the strategic merge keys addresses by type, so the list is replaced whole.
    return [{ $patch: 'replace' }, ...machine, { type: 'InternalIP', address: storage }];
  }

  private async markRunning(pod: V1Pod): Promise<void> {
    const now = new Date().toISOString();
    const containers = pod.spec?.containers ?? [];
    await this.core.patchNamespacedPodStatus(
      {
        name: pod.metadata?.name ?? '',
        namespace: pod.metadata?.namespace ?? 'default',
        body: {
          status: {
            phase: 'Running',
            startTime: now,
            podIP: '10.244.0.10',
            conditions: ['PodReadyToStartContainers', 'Initialized', 'ContainersReady', 'Ready'].map(
              (type) => ({
                type,
                status: 'True',
                lastTransitionTime: now,
              }),
            ),
            containerStatuses: containers.map((c) => ({
              name: c.name,
              image: c.image ?? '',
              imageID: '',
              containerID: `lab://${pod.metadata?.uid}/${c.name}`,
              ready: true,
              started: true,
              restartCount: 0,
              state: { running: { startedAt: now } },
            })),
          },
        },
      },
      strategic,
    );
    this.log(`kubelet-sim: ${pod.spec?.nodeName} started ${pod.metadata?.namespace}/${pod.metadata?.name}`);
  }

  private async markContainerCreating(pod: V1Pod): Promise<void> {
    const containers = pod.spec?.containers ?? [];
    await this.core.patchNamespacedPodStatus(
      {
        name: pod.metadata?.name ?? '',
        namespace: pod.metadata?.namespace ?? 'default',
        body: {
          status: {
            phase: 'Pending',
            containerStatuses: containers.map((c) => ({
              name: c.name,
              image: c.image ?? '',
              imageID: '',
              ready: false,
              restartCount: 0,
              state: { waiting: { reason: 'ContainerCreating' } },
            })),
          },
        },
      },
      strategic,
    );
  }
}

/** One tick's snapshot of the objects a kubelet looks at. */
class World {
  private readonly attached = new Set<string>();
  private readonly pvByName = new Map<string, V1PersistentVolume>();
  private readonly pvcByKey = new Map<string, V1PersistentVolumeClaim>();

  constructor(
    private readonly pods: V1Pod[],
    vas: V1VolumeAttachment[],
    pvcs: V1PersistentVolumeClaim[],
    pvs: V1PersistentVolume[],
    private readonly driverName: string,
    private readonly stagedDriver?: string,
  ) {
    for (const va of vas) {
      if (va.status?.attached && !va.metadata?.deletionTimestamp) {
        this.attached.add(`${va.spec.source.persistentVolumeName}@${va.spec.nodeName}`);
      }
    }
    for (const pv of pvs) this.pvByName.set(pv.metadata?.name ?? '', pv);
    for (const pvc of pvcs) this.pvcByKey.set(`${pvc.metadata?.namespace}/${pvc.metadata?.name}`, pvc);
  }

  podsOn(node: string): V1Pod[] {
    return this.pods.filter((p) => p.spec?.nodeName === node);
  }

  isAttached(pv: string, node: string): boolean {
    return this.attached.has(`${pv}@${node}`);
  }

  /** The pod's CSI volumes of this driver, by PV name and by the unique name kubelets report. */
  uniqueVolumeNames(pod: V1Pod): { pv: string; unique: string }[] {
    const out: { pv: string; unique: string }[] = [];
    for (const v of pod.spec?.volumes ?? []) {
      const claim = v.persistentVolumeClaim?.claimName;
      if (!claim) continue;
      const pvName = this.pvcByKey.get(`${pod.metadata?.namespace}/${claim}`)?.spec?.volumeName ?? '';
      const csi = this.pvByName.get(pvName)?.spec?.csi;
      // An unbound claim or a missing PV keeps the pod ContainerCreating, as on a real node.
      if (!csi) out.push({ pv: pvName || `unbound:${claim}`, unique: '' });
      else if (csi.driver === this.driverName || csi.driver === this.stagedDriver)
        out.push({ pv: pvName, unique: `kubernetes.io/csi/${csi.driver}^${csi.volumeHandle}` });
    }
    return out;
  }

  /** The pod's volumes of the driver the node must stage (RBD), with their attributes. */
  stagedVolumes(pod: V1Pod): StagedVolume[] {
    if (!this.stagedDriver) return [];
    return this.uniqueVolumeNames(pod).flatMap(({ pv }) => {
      const csi = this.pvByName.get(pv)?.spec?.csi;
      if (!csi || csi.driver !== this.stagedDriver) return [];
      return [{ pv, handle: csi.volumeHandle, attributes: { ...csi.volumeAttributes } }];
    });
  }
}
