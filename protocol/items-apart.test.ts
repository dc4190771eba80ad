import Type from 'typebox';
import { describe, expect, test } from 'vitest';
import { validatorWithItemsApart } from './items-apart.ts';
import { fieldPath, validatorOf } from './validator.ts';

const Item = Type.Object(
  { id: Type.String(), level: Type.Number({ minimum: 0 }) },
  { additionalProperties: false },
);
const Doc = Type.Object(
  {
    format: Type.Literal('doc/1'),
    engine: Type.Object({ tasks: Type.Array(Item), next: Type.Integer() }),
    events: Type.Array(Item, { maxItems: 3 }),
  },
  { additionalProperties: false },
);
const apart = validatorWithItemsApart(Doc, [['engine', 'tasks'], ['events']]);
const whole = validatorOf(Doc);

/** The field and message each check names first, as the restores print them. */
function refusal(data: unknown) {
  const error = apart(data);
  whole(data);
  const expected = whole.errors?.[0];
  return {
    apart: error && `${fieldPath(error, 'doc')} ${error.message}`,
    whole: expected && `${fieldPath(expected, 'doc')} ${expected.message}`,
  };
}

const good = () => ({
  format: 'doc/1',
  engine: {
    tasks: [
      { id: 'a', level: 1 },
      { id: 'b', level: 2 },
    ],
    next: 3,
  },
  events: [{ id: 'c', level: 0 }],
});

describe('a document checked an item at a time (the snapshots of a fleet, WS and FS rows)', () => {
  test('a valid document passes, as it does whole', () => {
    expect(apart(good())).toBeUndefined();
    expect(whole(good())).toBe(true);
  });

  test.each([
    ['an item of a nested array', (d: any) => (d.engine.tasks[1].level = -1)],
    ['an item missing a field', (d: any) => delete d.events[0].id],
    ['an item with an unknown field', (d: any) => (d.engine.tasks[0].extra = 1)],
    [
      'the array itself',
      (d: any) => (d.events = [...d.events, ...d.events, ...d.events, ...d.events]),
    ],
    ['the root', (d: any) => (d.format = 'doc/0')],
    ['an object around the array', (d: any) => (d.engine = 'none')],
  ])('a fault in %s is named with the field and words of the whole check', (_, edit) => {
    const data = good();
    edit(data);
    const { apart: said, whole: expected } = refusal(data);
    expect(said).toBeDefined();
    expect(said).toBe(expected);
  });

  test('paths are where the item lies in the whole document', () => {
    const data = good();
    (data.engine.tasks[1] as any).level = 'high';
    expect(fieldPath(apart(data)!, 'doc')).toBe('doc.engine.tasks[1].level');
  });
});
