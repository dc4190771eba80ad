/**
 * `GET` and `DELETE /_stub/journal`: what the emulated APIs received and answered
 * (journal.ts). Registered inside the control routes, so a control token locks it too.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { JournalCleared, JournalPage, JournalQuery } from '../../../protocol/journal.schema.ts';
import { compilePathPattern, pathPatternProblem } from '../../../protocol/path-pattern.ts';
import { ErrorBody } from '../../../protocol/service-api.schema.ts';
import { HttpError } from '../../http-errors.ts';
import type { StubCore } from '../../stub-core.ts';
import { parseOldest } from '../service-api.routes.ts';
import { tags } from './control-answers.ts';

export const journalRoutes: FastifyPluginAsyncTypebox<{ core: StubCore }> = async (
  app,
  { core },
) => {
  app.get(
    '/journal',
    {
      schema: {
        tags,
        summary:
          'Requests the emulated APIs received and what they answered, oldest first, secrets masked; filtered and paged.',
        querystring: JournalQuery,
        response: { 200: JournalPage, 400: ErrorBody },
      },
    },
    async (request) => {
      const { method, path, account, since, status, fault, after, limit } = request.query;
      if (path !== undefined) {
        const problem = pathPatternProblem(path);
        if (problem)
          throw new HttpError(
            400,
            'invalid_field',
            `path '${path.slice(0, 80)}' ${problem}`,
            'path',
          );
      }
      return core.journal.list({
        method,
        path: path === undefined ? undefined : compilePathPattern(path),
        account,
        since: since === undefined ? undefined : parseOldest(since, 'since'),
        status,
        fault: fault === undefined ? undefined : fault === 'true',
        after,
        limit,
      });
    },
  );

  app.delete(
    '/journal',
    {
      schema: {
        tags,
        summary:
          'Empty the request journal (and its dropped count); answers how many entries it held.',
        response: { 200: JournalCleared },
      },
    },
    async () => ({ removed: core.journal.clear() }),
  );
};
