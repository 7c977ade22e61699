/** The CLI's kubeconfig reader: kubectl's precedence and merge rules, and one named problem for each failure. */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { selectKubeconfigContext } from '../../../../../lib/adapters/kubernetes/access/kubeconfig-files.js';

const dir = () => mkdtempSync(join(tmpdir(), 'kubeconfig-files-'));
const write = (folder: string, name: string, text: string): string => {
  const path = join(folder, name);
  writeFileSync(path, text);
  return path;
};
const config = (opts: { cluster: string; user: string; context: string; current?: string; ns?: string }) =>
  `apiVersion: v1
kind: Config
clusters: [{name: ${opts.cluster}, cluster: {server: 'https://${opts.cluster}.example:6443', certificate-authority: ca.pem}}]
users: [{name: ${opts.user}, user: {tokenFile: token}}]
contexts: [{name: ${opts.context}, context: {cluster: ${opts.cluster}, user: ${opts.user}${opts.ns ? `, namespace: ${opts.ns}` : ''}}}]
${opts.current ? `current-context: ${opts.current}` : ''}
`;

describe('selectKubeconfigContext', () => {
  it('takes the current context of --kubeconfig, with its namespace and paths next to the file', () => {
    const folder = dir();
    const path = write(
      folder,
      'config',
      config({ cluster: 'a', user: 'u', context: 'ctx', current: 'ctx', ns: 'db' }),
    );

    const selected = selectKubeconfigContext({ path });

    expect(selected).toMatchObject({
      files: [path],
      context: 'ctx',
      namespace: 'db',
      clusterName: 'a',
      userName: 'u',
      cluster: { server: 'https://a.example:6443', 'certificate-authority': join(folder, 'ca.pem') },
      user: { tokenFile: join(folder, 'token') },
    });
  });

  it('defaults the namespace to "default", as kubectl does', () => {
    const path = write(dir(), 'config', config({ cluster: 'a', user: 'u', context: 'ctx', current: 'ctx' }));
    expect(selectKubeconfigContext({ path }).namespace).toBe('default');
  });

  it('merges a KUBECONFIG list: the first file to name an entry wins, and the first current-context; missing files are skipped', () => {
    const first = dir();
    const second = dir();
    const a = write(first, 'a', config({ cluster: 'shared', user: 'u1', context: 'one', current: 'one' }));
    const b = write(
      second,
      'b',
      `${config({ cluster: 'shared', user: 'u2', context: 'two', current: 'two' })}`.replace(
        'shared.example',
        'other.example',
      ),
    );
    const kubeconfigEnv = [join(first, 'missing'), a, b].join(delimiter);

    const current = selectKubeconfigContext({ kubeconfigEnv });
    const two = selectKubeconfigContext({ kubeconfigEnv, context: 'two' });

    expect(current).toMatchObject({
      context: 'one',
      files: [a, b],
      cluster: { server: 'https://shared.example:6443' },
    });
    // Context "two" comes from the second file, but cluster "shared" was named first by the first file.
    expect(two).toMatchObject({
      context: 'two',
      userName: 'u2',
      cluster: { server: 'https://shared.example:6443' },
    });
    expect(two.user.tokenFile).toBe(join(second, 'token'));
  });

  it('reads ~/.kube/config when neither --kubeconfig nor KUBECONFIG is set', () => {
    const home = dir();
    mkdirSync(join(home, '.kube'));
    write(
      join(home, '.kube'),
      'config',
      config({ cluster: 'h', user: 'u', context: 'home', current: 'home' }),
    );

    expect(selectKubeconfigContext({ home, kubeconfigEnv: '' }).context).toBe('home');
  });

  it.each([
    [
      '--kubeconfig names no file',
      () => ({ path: '/nonexistent/kubeconfig' }),
      'missing',
      'kubeconfig /nonexistent/kubeconfig does not exist',
    ],
    [
      'no KUBECONFIG file exists',
      () => ({ kubeconfigEnv: ['/nonexistent/a', '/nonexistent/b'].join(delimiter) }),
      'missing',
      'no kubeconfig: none of the KUBECONFIG files (/nonexistent/a, /nonexistent/b) exists',
    ],
    [
      'there is no ~/.kube/config',
      () => ({ home: dir(), kubeconfigEnv: '' }),
      'missing',
      '.kube/config does not exist',
    ],
    ['the path is a folder', () => ({ path: dir() }), 'unreadable', 'it is a folder'],
    [
      'it is not YAML',
      () => ({ path: write(dir(), 'c', 'clusters: [\n  - a\n  b: [\n') }),
      'malformed',
      'is not valid YAML at line',
    ],
    [
      'it is not a kubeconfig',
      () => ({ path: write(dir(), 'c', 'clusters: 5\n') }),
      'malformed',
      'is not a kubeconfig: clusters:',
    ],
    [
      'the context does not exist',
      () => ({
        path: write(dir(), 'c', config({ cluster: 'a', user: 'u', context: 'ctx', current: 'ctx' })),
        context: 'prod',
      }),
      'unknown-context',
      'context "prod" is not in kubeconfig',
    ],
    [
      'no current-context is set and no --context given',
      () => ({ path: write(dir(), 'c', config({ cluster: 'a', user: 'u', context: 'ctx' })) }),
      'unknown-context',
      'sets no current-context; pass --context (contexts: ctx)',
    ],
    [
      'the context names an undefined cluster',
      () => ({
        path: write(
          dir(),
          'c',
          config({ cluster: 'a', user: 'u', context: 'ctx', current: 'ctx' }).replace(
            'cluster: a,',
            'cluster: gone,',
          ),
        ),
      }),
      'incomplete',
      'names cluster "gone", which it does not define',
    ],
    [
      'the context names an undefined user',
      () => ({
        path: write(
          dir(),
          'c',
          config({ cluster: 'a', user: 'u', context: 'ctx', current: 'ctx' }).replace(
            'user: u}',
            'user: nobody}',
          ),
        ),
      }),
      'incomplete',
      'names user "nobody", which it does not define',
    ],
  ])('refuses when %s, naming the problem', (_, lookup, problem, message) => {
    expect(() => selectKubeconfigContext(lookup())).toThrow(
      expect.objectContaining({
        name: 'KubeconfigError',
        problem,
        message: expect.stringContaining(message),
      }),
    );
  });
});
