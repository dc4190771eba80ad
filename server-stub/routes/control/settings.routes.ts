/** What the stub runs with: `GET /settings` and `GET /environments`. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { EnvironmentsView, StubSettings } from '../../../protocol/control-api.schema.ts';
import type { StubCore } from '../../stub-core.ts';
import { tags } from './control-answers.ts';

export const settingsRoutes: FastifyPluginAsyncTypebox<{ core: StubCore }> = async (
  app,
  { core },
) => {
  app.get(
    '/settings',
    {
      schema: {
        tags,
        summary:
          'The settings this stub runs with: auth scheme, brand and URN words, unknown fields and client ids, cancel events, body limit, environments and their client ids, HTTP timeouts, badge limits.',
        response: { 200: StubSettings },
      },
    },
    async () => core.settings,
  );

  app.get(
    '/environments',
    {
      schema: {
        tags,
        summary: 'The environments: path prefix and client ids of each (pro is the default).',
        response: { 200: EnvironmentsView },
      },
    },
    async () => core.settings.environments,
  );
};
