/**
 * The CDK app: `npx cdk synth` (cdk.json runs this file). Offline and lookup-free: the stack is
 * environment-agnostic unless CDK_DEFAULT_ACCOUNT/REGION are set, and the clusters come from context
 * (`-c kube-fencer:clustersFile=clusters.json`, or `-c kube-fencer:clusters='[...]'`).
 */
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { clustersFromContext, EMAIL_CONTEXT } from './config.js';
import { KubeFencerStack } from './fencer-stack.js';

const app = new App();
const account = process.env.CDK_DEFAULT_ACCOUNT;
const region = process.env.CDK_DEFAULT_REGION;
const email = app.node.tryGetContext(EMAIL_CONTEXT) as string | undefined;
new KubeFencerStack(app, 'KubeFencer', {
  clusters: clustersFromContext((key) => app.node.tryGetContext(key)),
  ...(email ? { alarmEmail: email } : {}),
  ...(account && region ? { env: { account, region } } : {}),
  description: 'kube-fencer: proves dead Kubernetes nodes off through EC2, then releases their volumes',
});
// cdk-nag 3 is a policy-validation plugin: any unacknowledged finding fails the synth.
Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { verbose: true }));
app.synth();
