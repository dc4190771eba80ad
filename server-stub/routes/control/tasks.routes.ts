/** `GET /tasks` and `GET /tasks/{task_id}`: alert tasks with their state. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { TaskParams, TasksQuery, TaskView } from '../../../protocol/control-api.schema.ts';
import { HttpError } from '../../http-errors.ts';
import type { StubCore } from '../../stub-core.ts';
import { errors, tags } from './control-answers.ts';

export const tasksRoutes: FastifyPluginAsyncTypebox<{ core: StubCore }> = async (app, { core }) => {
  app.get(
    '/tasks',
    {
      schema: {
        tags,
        summary: 'Alert tasks with their state.',
        querystring: TasksQuery,
        response: { 200: Type.Array(TaskView) },
      },
    },
    async (request) => core.engine.tasks(request.query.subscriber_id),
  );

  app.get(
    '/tasks/:task_id',
    {
      schema: {
        tags,
        summary: 'One alert task with the state of each device.',
        params: TaskParams,
        response: { 200: TaskView, ...errors },
      },
    },
    async (request) => {
      const task = core.engine.task(request.params.task_id);
      if (!task)
        throw new HttpError(404, 'unknown_task', `no task '${request.params.task_id}'`, 'task_id');
      return task;
    },
  );
};
