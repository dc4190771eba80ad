/**
 * `/_stub/faults`: add, list, read and remove faults on the emulated APIs. Registered from
 * inside the control routes, so the control token and its documentation apply. The table
 * itself is `StubCore.faults` (server-stub/faults.ts).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import {
  FaultParams,
  FaultRequest,
  FaultsCleared,
  FaultView,
} from '../../../protocol/faults.schema.ts';
import { ErrorBody } from '../../../protocol/service-api.schema.ts';
import { HttpError } from '../../http-errors.ts';
import type { StubCore } from '../../stub-core.ts';
import { tags } from './control-answers.ts';

export const faultRoutes: FastifyPluginAsyncTypebox<{ core: StubCore }> = async (app, { core }) => {
  const unknownFault = (id: string) =>
    new HttpError(404, 'unknown_fault', `no fault '${id}'`, 'id');

  app.post(
    '/faults',
    {
      schema: {
        tags,
        summary:
          'Add a fault on the emulated APIs: a status answer, latency, a reset connection or a stalled body, for matching requests.',
        body: FaultRequest,
        response: { 201: FaultView, 400: ErrorBody, 409: ErrorBody },
      },
    },
    async (request, reply) => {
      const fault = core.faults.add(request.body);
      reply.code(201).header('location', `${request.routeOptions.url}/${fault.id}`);
      return fault;
    },
  );

  app.get(
    '/faults',
    {
      schema: {
        tags,
        summary: 'Every fault, oldest first (the newest that matches a request applies).',
        response: { 200: Type.Array(FaultView) },
      },
    },
    async () => core.faults.list(),
  );

  app.get(
    '/faults/:id',
    {
      schema: {
        tags,
        summary: 'One fault, with how many requests it applied to and has left.',
        params: FaultParams,
        response: { 200: FaultView, 400: ErrorBody, 404: ErrorBody },
      },
    },
    async (request) => {
      const fault = core.faults.get(request.params.id);
      if (!fault) throw unknownFault(request.params.id);
      return fault;
    },
  );

  app.delete(
    '/faults/:id',
    {
      schema: {
        tags,
        summary: 'Remove a fault.',
        params: FaultParams,
        response: { 200: FaultView, 400: ErrorBody, 404: ErrorBody },
      },
    },
    async (request) => {
      const fault = core.faults.get(request.params.id);
      if (!fault || !core.faults.remove(fault.id)) throw unknownFault(request.params.id);
      return fault;
    },
  );

  app.delete(
    '/faults',
    {
      schema: {
        tags,
        summary: 'Remove every fault.',
        response: { 200: FaultsCleared },
      },
    },
    async () => ({ removed: core.faults.clear() }),
  );
};
