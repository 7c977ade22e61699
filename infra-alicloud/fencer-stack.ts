/**
 * The fencer in one Alibaba Cloud region, as one ROS stack: a log project and logstore (indexed on the
 * fields the alerts count), the outcomes topic (MNS), and a ClusterFencer per cluster of the region.
 * The functions' code comes from an OSS bucket in the region, a parameter of the stack: the zips are
 * uploaded there under their content-hashed names before the stack is created or updated.
 */
import * as ros from '@alicloud/ros-cdk-core';
import * as sls from '@alicloud/ros-cdk-sls';
import type { FcFunctionName } from './bundling.js';
import type { CodePackage } from './code-packages.js';
import type { AlibabaClusterConfig } from './config.js';
import { ClusterFencer } from './constructs/cluster-fencer.js';
import { acs, logicalId } from './constructs/policies.js';

export interface AlibabaFencerStackProps {
  readonly region: string;
  readonly clusters: readonly AlibabaClusterConfig[];
  readonly packages: readonly CodePackage[];
}

/** The fields of a log line the index makes searchable (the alerts' and the RUNBOOK's searches). */
export const INDEXED_FIELDS = [
  'level',
  'message',
  'metric',
  'outcome',
  'reason',
  'cluster',
  'node',
  'runId',
  'requestId',
  'functionName',
  'error',
] as const;

export const LOGSTORE = 'kube-fencer';
export const OUTCOMES_TOPIC = 'kube-fencer-outcomes';

export class AlibabaFencerStack extends ros.Stack {
  constructor(scope: ros.Construct, id: string, props: AlibabaFencerStackProps) {
    super(scope, id, {
      description: `kube-fencer in ${props.region}: fencing for ${props.clusters.map((c) => c.name).join(', ')}`,
    });
    const codeBucket = new ros.RosParameter(this, 'CodeBucket', {
      type: ros.RosParameterType.STRING,
      description: `OSS bucket in ${props.region} holding the functions' zips (cdk.out.alibaba/code, uploaded as they are named)`,
      minLength: 3,
      maxLength: 63,
    });
    const logProject = new ros.RosParameter(this, 'LogProjectName', {
      type: ros.RosParameterType.STRING,
      description:
        'Name of the SLS project created for the fencer (unique in the region across all accounts)',
      defaultValue: `kube-fencer-${props.region}`,
      allowedPattern: '^[a-z0-9][a-z0-9-]{1,61}[a-z0-9]$',
    });
    const project = new sls.Project(this, 'Logs', {
      name: logProject.valueAsString,
      description: 'kube-fencer: the functions’ logs and metric lines',
    });
    const store = new sls.Logstore(this, 'Logstore', {
      projectName: project.attrName,
      logstoreName: LOGSTORE,
      ttl: 90,
      shardCount: 2,
    });
    new sls.Index(this, 'Index', {
      projectName: project.attrName,
      logstoreName: store.attrLogstoreName,
      fullTextIndex: { enable: true },
      keyIndices: INDEXED_FIELDS.map((name) => ({ name, type: 'text', enableAnalytics: true })),
    });
    const topic = new ros.RosResource(this, 'Outcomes', {
      type: 'ALIYUN::MNS::Topic',
      properties: { TopicName: OUTCOMES_TOPIC, LoggingEnabled: false },
    });
    const destination = acs('mns', `/topics/${OUTCOMES_TOPIC}/messages`);
    const codeObjects = Object.fromEntries(props.packages.map((p) => [p.name, p.objectName])) as Record<
      FcFunctionName,
      string
    >;
    for (const cluster of props.clusters) {
      const fencer = new ClusterFencer(this, logicalId(cluster.name, 'Fencer'), {
        cluster,
        codeBucket: codeBucket.valueAsString,
        codeObjects,
        logProject: logProject.valueAsString,
        logstore: LOGSTORE,
        outcomesDestination: destination,
      });
      for (const f of Object.values(fencer.functions)) {
        f.function.addDependency(store);
        f.node.addDependency(topic);
      }
      new ros.RosOutput(this, logicalId(cluster.name, 'RunFunction'), {
        value: fencer.functions.run.functionName,
        description: `The fencing run function of ${cluster.name}`,
      });
      new ros.RosOutput(this, logicalId(cluster.name, 'ManualFunction'), {
        value: fencer.functions.manual.functionName,
        description: `Invoke with {"node": "<name>"} to fence a node of ${cluster.name} by hand`,
      });
    }
    new ros.RosOutput(this, 'OutcomesTopic', { value: OUTCOMES_TOPIC });
  }
}
