/** Where the stack's clusters come from: the command line or a file, never a default nobody chose. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { clustersFromContext } from '../../infra/config.js';

const context = (values: Record<string, unknown>) => (key: string) => values[key];

describe('the clusters of a deployment', () => {
  it('come from a JSON file named by kube-fencer:clustersFile, such as the example', () => {
    const clusters = clustersFromContext(
      context({ 'kube-fencer:clustersFile': 'deploy/clusters.example.json' }),
    );

    expect(clusters.map((c) => c.name)).toEqual(['prod']);
    expect(clusters[0]).toMatchObject({
      requestDefaults: { dryRun: true },
      statusCheckAlarms: { everyMinutes: 5 },
    });
  });

  it('or from the JSON itself in kube-fencer:clusters, as a string from -c or an object from cdk.json', () => {
    const json =
      '[{"name":"edge","kubeconfigSecretArn":"arn:aws:secretsmanager:us-east-1:1:secret:kc-AbCdEf"}]';

    expect(clustersFromContext(context({ 'kube-fencer:clusters': json }))[0]?.name).toBe('edge');
    expect(clustersFromContext(context({ 'kube-fencer:clusters': JSON.parse(json) }))[0]?.name).toBe('edge');
  });

  it('are never guessed: none given, or both ways at once, is an error that says what to pass', () => {
    expect(() => clustersFromContext(context({}))).toThrow(/pass -c kube-fencer:clustersFile=clusters.json/);
    expect(() =>
      clustersFromContext(context({ 'kube-fencer:clusters': '[]', 'kube-fencer:clustersFile': 'x.json' })),
    ).toThrow(/not both/);
  });

  it('are checked like every other input', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kube-fencer-clusters-'));
    writeFileSync(join(dir, 'bad.json'), '[{"name":"prod","eks":{},"router":{"maxRunsPerEvent":0}}]');

    expect(() => clustersFromContext(context({ 'kube-fencer:clustersFile': join(dir, 'bad.json') }))).toThrow(
      /maxRunsPerEvent/,
    );
  });
});
