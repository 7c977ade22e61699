import { describe, expect, it } from 'vitest';
import { ApiStatusError } from '../../../../lib/adapters/kubernetes/api/api-client.js';
import { KubernetesApiError } from '../../../../lib/adapters/kubernetes/errors.js';
import { listMapped, type RawPage } from '../../../../lib/adapters/kubernetes/raw-list.js';

const pages: Record<string, RawPage> = {
  first: { items: [{ n: 1 }, { n: 2 }], metadata: { continue: 'p2' } },
  p2: { items: [{ n: 3 }], metadata: { continue: 'p3' } },
  p3: { items: [{ n: 4 }], metadata: { continue: '' } },
};

describe('listMapped', () => {
  it('follows the continue token to the last page, mapping items as each page arrives', async () => {
    const asked: (string | undefined)[] = [];
    const items = await listMapped(
      'listThing',
      '/things',
      async (token) => {
        asked.push(token);
        return pages[token ?? 'first'] as RawPage;
      },
      (item: { n: number }) => item.n * 10,
    );
    expect(items).toEqual([10, 20, 30, 40]);
    expect(asked).toEqual([undefined, 'p2', 'p3']);
  });

  it('drops the items the mapping filters out (undefined), keeping memory to what is needed', async () => {
    const items = await listMapped(
      'listThing',
      '/things',
      async (t) => pages[t ?? 'first'] as RawPage,
      (i: { n: number }) => (i.n % 2 === 0 ? i.n : undefined),
    );
    expect(items).toEqual([2, 4]);
  });

  it('fails the whole list when a page fails (an expired continue token is not an observation)', async () => {
    const gone = new ApiStatusError(410, '{"message":"The provided continue parameter is too old"}');
    const attempt = listMapped(
      'listThing',
      '/things',
      async (t) => {
        if (t === 'p2') throw gone;
        return pages[t ?? 'first'] as RawPage;
      },
      (i: { n: number }) => i.n,
    );
    await expect(attempt).rejects.toBeInstanceOf(KubernetesApiError);
    await expect(attempt).rejects.toMatchObject({
      statusCode: 410,
      message: expect.stringContaining('continue parameter is too old'),
    });
  });
});
