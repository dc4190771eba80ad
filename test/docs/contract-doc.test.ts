/**
 * docs/contract.md lists every operation of the service the stub emulates. This keeps that
 * table and the stub's own OpenAPI document the same, so the page a newcomer reads is true.
 */
import { readFile } from 'node:fs/promises';
import { expect, test } from 'vitest';
import { startStub } from '../../server-stub/start-stub.ts';

const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

test('docs/contract.md lists exactly the emulated operations of the OpenAPI document', async () => {
  await using stub = await startStub();
  const document = (await (await fetch(`${stub.url}/_stub/openapi.json`)).json()) as {
    paths: Record<string, Record<string, unknown>>;
  };
  const served = Object.entries(document.paths)
    .filter(([path]) => !path.startsWith('/_stub') && !path.startsWith('/qa/'))
    .flatMap(([path, operations]) =>
      Object.keys(operations)
        .filter((method) => METHODS.includes(method))
        .map((method) => `${method.toUpperCase()} ${path}`),
    )
    .sort();
  const page = await readFile(new URL('../../docs/contract.md', import.meta.url), 'utf8');
  const table = page.slice(page.indexOf('## Every operation'), page.indexOf('## The notification'));
  const listed = [...table.matchAll(/^\| `([A-Z]+ \/[^`]*)` \|/gm)].map((m) => m[1]).sort();
  expect(listed).toEqual(served);
  // qa serves the same operations of the token, trigger and device interface under /qa.
  const qa = Object.keys(document.paths).filter((path) => path.startsWith('/qa/'));
  expect(qa.sort()).toEqual(
    served
      .filter((op) => !op.includes('/subscribers/'))
      .map((op) => `/qa${op.split(' ')[1]}`)
      .sort(),
  );
});
