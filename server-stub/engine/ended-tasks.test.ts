/**
 * Ended tasks (decisions H1, H10): forgotten 7 days after they ended, or earlier, the oldest
 * first and counted, when more than ENDED_TASKS_CAP tasks or ENDED_RECIPIENTS_CAP recipients
 * are kept.
 */
import { describe, expect, it } from 'vitest';
import { EndedTasks } from './ended-tasks.ts';

/** The documented caps (H10). */
const ENDED_TASKS_CAP = 10_000;
const ENDED_RECIPIENTS_CAP = 100_000;
const DAY = 24 * 3600 * 1000;

function setup() {
  const forgotten: string[] = [];
  const ended = new EndedTasks<string>(7 * DAY, (task) => forgotten.push(task));
  return { ended, forgotten };
}

describe('EndedTasks', () => {
  it(`keeps at most ${ENDED_TASKS_CAP} tasks: past it the oldest is forgotten at once, counted`, () => {
    const { ended, forgotten } = setup();
    for (let i = 0; i < ENDED_TASKS_CAP + 5; i++) ended.push(`t${i}`, i, 1);
    expect(ended.size).toBe(ENDED_TASKS_CAP);
    expect(forgotten).toEqual(['t0', 't1', 't2', 't3', 't4']);
    expect(ended.droppedEarly).toBe(5);
    expect([...ended.newest(2)]).toEqual([`t${ENDED_TASKS_CAP + 4}`, `t${ENDED_TASKS_CAP + 3}`]);
  });

  it(`keeps at most ${ENDED_RECIPIENTS_CAP} recipients over its tasks: large alerts keep fewer tasks; one alone is kept whatever its size`, () => {
    const { ended, forgotten } = setup();
    for (let i = 0; i < 105; i++) ended.push(`big${i}`, i, 1_000);
    expect(ended.size).toBe(100);
    expect(forgotten).toHaveLength(5);
    expect(forgotten[0]).toBe('big0');
    ended.push('huge', 200, ENDED_RECIPIENTS_CAP * 2);
    expect([...ended.newest(10)]).toEqual(['huge']);
    expect(ended.droppedEarly).toBe(105);
  });

  it('forgets what ended more than the retention ago (not counted as dropped early); exactly at it, kept', () => {
    const { ended, forgotten } = setup();
    ended.push('a', 0, 3);
    ended.push('b', DAY, 3);
    ended.forgetExpired(7 * DAY);
    expect(ended.size).toBe(2);
    ended.forgetExpired(7 * DAY + 1);
    expect(forgotten).toEqual(['a']);
    expect([...ended.newest(5)]).toEqual(['b']);
    expect(ended.droppedEarly).toBe(0);
  });
});
