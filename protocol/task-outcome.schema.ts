import Type from 'typebox';

/** Whether a task still alerts, and how it ended: a task view's words, and a world snapshot's. */
export const TaskState = Type.Union([Type.Literal('alerting'), Type.Literal('ended')]);
export const TaskOutcome = Type.Union([
  Type.Literal('quorum'),
  Type.Literal('timed_out'),
  Type.Literal('cancelled'),
  Type.Null(),
]);
