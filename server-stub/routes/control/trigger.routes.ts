/**
 * What tests see and set of the trigger interface: the HTTP workflows it invoked
 * (`GET /workflows/invocations`) and its refresh tokens (`POST /tokens/refresh`, `/revoke`).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import {
  RefreshTokenIssued,
  RefreshTokenRequest,
  Revoked,
  RevokeRequest,
  WorkflowInvocation,
} from '../../../protocol/control-api.schema.ts';
import { HttpError } from '../../http-errors.ts';
import type { StubCore } from '../../stub-core.ts';
import { errors, tags } from './control-answers.ts';

export const triggerRoutes: FastifyPluginAsyncTypebox<{ core: StubCore }> = async (
  app,
  { core },
) => {
  app.get(
    '/workflows/invocations',
    {
      schema: {
        tags,
        summary: 'Every HTTP workflow invoked, oldest first.',
        response: { 200: Type.Array(WorkflowInvocation) },
      },
    },
    async () => core.invocations,
  );

  app.post(
    '/tokens/refresh',
    {
      schema: {
        tags,
        summary:
          'Issue a refresh token for a user of an account in an environment (pro by default).',
        body: RefreshTokenRequest,
        response: { 200: RefreshTokenIssued, ...errors },
      },
    },
    async (request) => {
      const { subscriber_id: subscriberId, environment, user_id: userId, email } = request.body;
      if (!core.directory.hasSubscriber(subscriberId)) {
        throw new HttpError(
          404,
          'unknown_subscriber',
          `no account ${subscriberId}`,
          'subscriber_id',
        );
      }
      return {
        refresh_token: core.tokens.issueRefreshToken(subscriberId, environment ?? 'pro', {
          userId,
          email,
        }),
      };
    },
  );

  app.post(
    '/tokens/revoke',
    {
      schema: {
        tags,
        summary: 'Revoke a refresh token (in the body: a secret does not go in a URL).',
        body: RevokeRequest,
        response: { 200: Revoked, ...errors },
      },
    },
    async (request) => {
      if (!core.tokens.revokeRefreshToken(request.body.refresh_token)) {
        throw new HttpError(404, 'unknown_refresh_token', 'no such refresh token', 'refresh_token');
      }
      return { revoked: true };
    },
  );
};
