import { describe, expect, test } from 'vitest';
import type { Fixtures } from '../../fixtures/fixtures.schema.ts';
import { DeviceRows } from './device-rows.ts';

const fixtures = {
  accounts: [
    { subscriber_id: 'A', devices: [{ id: 'a0' }, { id: 'a1' }, { id: 'a2' }] },
    { subscriber_id: 'B', devices: [{ id: 'b0' }, { id: 'b1' }] },
  ],
} as unknown as Fixtures;

describe("a snapshot's task devices as rows of the fixtures' devices (WS19)", () => {
  test('rows in the directory order, whether the task lists them in that order or not', () => {
    const rows = new DeviceRows(fixtures);
    expect(rows.size).toBe(5);
    expect([...(rows.rowsOf(['a0', 'a1', 'a2'], 'A') as Int32Array)]).toEqual([0, 1, 2]);
    expect([...(rows.rowsOf(['a2', 'a0'], 'A') as Int32Array)]).toEqual([2, 0]);
    expect([...(rows.rowsOf(['b1', 'b0'], 'B') as Int32Array)]).toEqual([4, 3]);
  });

  test('the first device unknown, of another account or listed twice by a task is named', () => {
    const rows = new DeviceRows(fixtures);
    expect(rows.rowsOf(['a0', 'nobody'], 'A')).toEqual({ wrong: 1 });
    // a2's next row is b0: the row after is tried first, and still refused for its account.
    expect(rows.rowsOf(['a2', 'b0'], 'A')).toEqual({ wrong: 1 });
    expect(rows.rowsOf(['a0', 'a1', 'a0'], 'A')).toEqual({ wrong: 2 });
    // Each task counts apart: a device listed by the task before is not listed twice.
    expect(rows.rowsOf(['a0'], 'A')).toBeInstanceOf(Int32Array);
    expect(rows.rowsOf(['a0'], 'A')).toBeInstanceOf(Int32Array);
  });

  test("where a device is among a task's rows", () => {
    const rows = new DeviceRows(fixtures);
    const task = rows.rowsOf(['a2', 'a0'], 'A') as Int32Array;
    expect(rows.indexIn(task, 'a0')).toBe(1);
    expect(rows.indexIn(task, 'a1')).toBe(-1);
    expect(rows.indexIn(task, 'nobody')).toBe(-1);
  });
});
