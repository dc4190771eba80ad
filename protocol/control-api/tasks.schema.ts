/** The control API's tasks (`/_stub/tasks`): each alerting task as the stub keeps it. */
import Type, { type Static } from 'typebox';
import { TaskOutcome, TaskState } from '../task-outcome.schema.ts';

export const TaskView = Type.Object({
  task_id: Type.String(),
  subscriber_id: Type.String(),
  name: Type.String(),
  notification: Type.String(),
  state: TaskState,
  outcome: TaskOutcome,
  created_at: Type.String(),
  ended_at: Type.Union([Type.String(), Type.Null()]),
  quorum: Type.Integer(),
  timeout: Type.Integer(),
  acknowledgements: Type.Integer(),
  devices: Type.Array(
    Type.Object({
      device_id: Type.String(),
      user: Type.String(),
      status: Type.String(),
      plays: Type.Integer(),
    }),
  ),
});

export const TaskParams = Type.Object({ task_id: Type.String() });
export const TasksQuery = Type.Object({ subscriber_id: Type.Optional(Type.String()) });

export type TaskView = Static<typeof TaskView>;
