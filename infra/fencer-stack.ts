/**
 * The kube-fencer stack of the project's own app (infra/app.ts): one per account and region, holding
 * one `KubeFencer` (infra/kube-fencer.ts) for the clusters of clusters.json. The construct's id is
 * `Default`, which CloudFormation's logical ids leave out: a stack deployed before the construct
 * existed keeps every resource.
 */
import { Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import type { ClusterFencer } from './constructs/cluster-fencer.js';
import { KubeFencer } from './kube-fencer.js';
import type { KubeFencerProps } from './kube-fencer-props.js';

export interface KubeFencerStackProps extends StackProps, KubeFencerProps {}

/** The fencer of every configured cluster. */
export class KubeFencerStack extends Stack {
  readonly fencer: KubeFencer;

  constructor(scope: Construct, id: string, props: KubeFencerStackProps) {
    super(scope, id, props);
    this.fencer = new KubeFencer(this, 'Default', {
      clusters: props.clusters,
      ...(props.alarmEmail ? { alarmEmail: props.alarmEmail } : {}),
    });
  }

  /** Each cluster's fencer, in the order configured. */
  get fencers(): ClusterFencer[] {
    return Object.values(this.fencer.clusters);
  }
}
