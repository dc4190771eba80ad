/**
 * The loopback fetch's headers (scenarios/runner/loopback-headers.ts) read and list as the WHATWG
 * `Headers` class it stands in for, which the loopback fetch used before: the same names,
 * values, order and refusals, without loading undici.
 */
import { expect, test } from 'vitest';
import { LoopbackHeaders, requestHeaderList } from '../../scenarios/runner/loopback-headers.ts';

type Given = NonNullable<RequestInit['headers']>;

test.each<[string, Given]>([
  ['a record in mixed case', { 'X-Upper': ' 1 ', authorization: 'k', 'Content-Type': 'a/b' }],
  [
    'pairs, one name twice',
    [
      ['X-Trace', ' a '],
      ['accept', 'application/json'],
      ['x-trace', 'b'],
    ],
  ],
  [
    'a Headers object',
    new Headers([
      ['B', '2'],
      ['a', '1'],
    ]),
  ],
  ['a list as a value', { 'x-list': ['a', 'b'] as unknown as string }],
  ['nothing', {}],
])('request headers given as %s are listed as new Headers(given) lists them', (_name, given) => {
  expect(requestHeaderList(given)).toEqual([...new Headers(given)]);
});

test('a request header name or value Headers refuses is refused in its words', () => {
  const refused: Given[] = [
    { 'x y': '1' },
    { x: 'a\nb' },
    { 'x\u00e9': '1' },
    [['x']] as unknown as [string, string][],
  ];
  for (const given of refused) {
    let refusal: unknown;
    try {
      new Headers(given);
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(TypeError);
    expect(() => requestHeaderList(given)).toThrow(new TypeError((refusal as Error).message));
  }
});

test("an answer's headers read as Headers filled from its raw headers: joined, sorted, set-cookie apart, unchangeable", () => {
  const raw = [
    'Set-Cookie',
    'a=1',
    'X-Many',
    '1',
    'B-First',
    ' spaced ',
    'set-cookie',
    'b=2',
    'x-many',
    '2',
    'Content-Length',
    '2',
  ];
  const expected = new Headers();
  for (let i = 0; i < raw.length; i += 2) expected.append(raw[i]!, raw[i + 1]!);
  const read = (headers: Headers) => {
    const seen: string[] = [];
    headers.forEach((value, name) => {
      seen.push(`${name}=${value}`);
    });
    return {
      list: [...headers],
      entries: [...headers.entries()],
      keys: [...headers.keys()],
      values: [...headers.values()],
      forEach: seen,
      many: headers.get('X-MANY'),
      cookie: headers.get('set-cookie'),
      cookies: headers.getSetCookie(),
      has: [headers.has('b-first'), headers.has('absent')],
      absent: headers.get('absent'),
    };
  };
  const got = new LoopbackHeaders(raw);
  expect(read(got)).toEqual(read(expected));
  expect(() => got.set('x', '1')).toThrow(TypeError);
  expect(() => got.append('x', '1')).toThrow(TypeError);
  expect(() => got.delete('x')).toThrow(TypeError);
});
