/** `/fixtures`: the loaded fixtures, loading others, and generating them from a seed. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Fixtures } from '../../../fixtures/fixtures.schema.ts';
import { FixtureError } from '../../../fixtures/load-fixtures.ts';
import {
  GENERATE_MAX_DEVICES,
  GenerateRequest,
  Health,
} from '../../../protocol/control-api.schema.ts';
import { HttpError } from '../../http-errors.ts';
import type { StubCore } from '../../stub-core.ts';
import { errors, healthOf, tags } from './control-answers.ts';

export const fixturesRoutes: FastifyPluginAsyncTypebox<{ core: StubCore }> = async (
  app,
  { core },
) => {
  const loadFixtures = (document: unknown) => {
    try {
      return core.loadFixtures(document);
    } catch (error) {
      if (error instanceof FixtureError)
        throw new HttpError(400, 'invalid_fixtures', error.message, error.path);
      throw error;
    }
  };

  app.get(
    '/fixtures',
    { schema: { tags, summary: 'The loaded fixtures.', response: { 200: Fixtures } } },
    async () => core.fixtures,
  );

  app.put(
    '/fixtures',
    {
      schema: {
        tags,
        summary: 'Load fixtures (and reset).',
        body: Fixtures,
        response: { 200: Health, ...errors },
      },
    },
    async (request) => {
      loadFixtures(request.body);
      return healthOf(core);
    },
  );

  app.post(
    '/fixtures/generate',
    {
      schema: {
        tags,
        summary: 'Generate fixtures with faker from a seed, load them (and reset).',
        body: GenerateRequest,
        response: { 200: Fixtures, ...errors },
      },
    },
    async (request) => {
      const { accounts = 1, devicesPerAccount = 12 } = request.body;
      if (accounts * devicesPerAccount > GENERATE_MAX_DEVICES) {
        throw new HttpError(
          400,
          'invalid_field',
          `devicesPerAccount × accounts is ${accounts * devicesPerAccount}: at most ${GENERATE_MAX_DEVICES} devices are generated`,
          'devicesPerAccount',
        );
      }
      // faker is large: loaded only when fixtures are generated.
      const { generateFixtures } = await import('../../../fixtures/generate-fixtures.ts');
      return loadFixtures(generateFixtures(request.body));
    },
  );
};
