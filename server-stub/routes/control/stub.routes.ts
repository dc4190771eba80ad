/**
 * The stub as a whole: `GET /health` (open even when the control API is locked), what it
 * keeps at most (`GET /kept`) and `POST /reset`.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Health, Kept } from '../../../protocol/control-api.schema.ts';
import { memoryGiver } from '../../give-back-memory.ts';
import type { StubCore } from '../../stub-core.ts';
import { healthOf, tags } from './control-answers.ts';

export const stubRoutes: FastifyPluginAsyncTypebox<{ core: StubCore }> = async (app, { core }) => {
  const memory = memoryGiver();
  app.addHook('onClose', async () => memory.stop());

  app.get(
    '/health',
    { schema: { tags, summary: 'Liveness and clock.', response: { 200: Health } } },
    async () => healthOf(core),
  );

  app.get(
    '/kept',
    {
      schema: {
        tags,
        summary:
          'What the stub keeps at most (events, ended tasks, transcript lines, invocations), and what it dropped past a cap since the last reset.',
        response: { 200: Kept },
      },
    },
    async () => core.kept(),
  );

  app.post(
    '/reset',
    {
      schema: {
        tags,
        summary: 'Back to the loaded fixtures: no tasks, events or transcripts.',
        response: { 200: Health },
      },
    },
    async () => {
      core.reset();
      memory.afterReset();
      return healthOf(core);
    },
  );
};
