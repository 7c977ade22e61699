/**
 * The soak's world: five workers and three databases, each on its own disk, in one of three worlds (EC2
 * with EBS, ECS with cloud disks, or Ceph RBD beside EC2 machines and bare-metal hosts), with the
 * control plane and the fencer set as a profile says: `shipped` (the defaults as shipped and Kubernetes'
 * own) or `quick` (shorter waits an operator may choose, for a soak of a few minutes in CI).
 */
import { type Lab, startLab } from '../lab.js';
import { deployStatefulApp, type StatefulApp } from '../scenarios/stateful-app.js';
import type { SoakWorld } from './schedule.js';

export const SOAK_NODES = ['node-a', 'node-b', 'node-c', 'node-d', 'node-e'] as const;
/** Where the databases start; the other two nodes are where they move. */
const APP_NODES = ['node-a', 'node-b', 'node-c'] as const;
/** In the RBD world: hosts with no providerID (no machine to power off; the storage fence is their one barrier). */
export const RBD_BARE_METAL = ['node-b', 'node-c'] as const;
/** In the RBD world: a bare-metal host whose Ceph clients use an address its Node never reports. */
const RBD_UNREPORTED = ['node-c'] as const;

export interface SoakProfile {
  /** kube-controller-manager's node-monitor-grace-period (Kubernetes' default: 50 s). */
  readonly nodeMonitorGraceSeconds: number;
  /** The default toleration of the unreachable taint (Kubernetes' default: 300 s). */
  readonly evictionTolerationSeconds: number;
  /** The health check's threshold (shipped: 180 s) and schedule (shipped: every minute). */
  readonly notReadyThresholdSeconds: number;
  readonly healthCheckEverySeconds: number;
  /** How long an incident lasts before the node heals or is powered on again. */
  readonly incidentSeconds: readonly [number, number];
}

export const PROFILES = {
  shipped: {
    nodeMonitorGraceSeconds: 50,
    evictionTolerationSeconds: 300,
    notReadyThresholdSeconds: 180,
    healthCheckEverySeconds: 60,
    incidentSeconds: [150, 420],
  },
  quick: {
    nodeMonitorGraceSeconds: 10,
    evictionTolerationSeconds: 20,
    notReadyThresholdSeconds: 30,
    healthCheckEverySeconds: 10,
    incidentSeconds: [70, 150],
  },
} as const satisfies Record<string, SoakProfile>;
export type ProfileName = keyof typeof PROFILES;

/**
 * The limits the fencer is deployed with in a soak: at most two nodes or 40 % unhealthy before it stops
 * powering off (the schedule takes up to three nodes at once, so the limit is met), and the cluster's
 * default of one fencing in flight (no max-in-flight annotation is set).
 */
export const SOAK_LIMITS = { maxUnhealthyNodes: 2, maxUnhealthyFraction: 0.4, maxInFlight: 1 } as const;

export interface SoakLab {
  readonly lab: Lab;
  readonly apps: readonly StatefulApp[];
  /** The nodes with no machine a provider can power off. */
  readonly bareMetal: readonly string[];
}

/** Starts the world's lab and deploys its databases, one per node of APP_NODES. */
export async function startSoakWorld(
  world: SoakWorld,
  profile: SoakProfile,
  onStep?: (line: string) => void,
): Promise<SoakLab> {
  const rbd = world === 'rbd';
  const lab = await startLab({
    provider: world === 'alibaba' ? 'alibaba' : 'aws',
    nodes: SOAK_NODES.length,
    timings: {
      nodeMonitorGraceSeconds: profile.nodeMonitorGraceSeconds,
      evictionTolerationSeconds: profile.evictionTolerationSeconds,
    },
    ...(rbd ? { ceph: true, bareMetal: RBD_BARE_METAL, storageAddressUnreported: RBD_UNREPORTED } : {}),
    ...(onStep ? { onStep } : {}),
  });
  try {
    const apps: StatefulApp[] = [];
    for (const [i, node] of APP_NODES.entries()) {
      onStep?.(`deploying db-${i} on ${node}`);
      apps.push(
        await deployStatefulApp(lab, { name: `db-${i}`, onNode: node, storage: rbd ? 'rbd' : 'ebs' }),
      );
    }
    return { lab, apps, bareMetal: rbd ? RBD_BARE_METAL : [] };
  } catch (error) {
    await lab.stop();
    throw error;
  }
}
