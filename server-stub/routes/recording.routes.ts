/**
 * `GET` and `DELETE /_stub/recording`: the session recording (recorder.ts). Registered inside
 * the control routes, so a control token locks it too.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Recording, RecordingCleared } from '../../protocol/recording.schema.ts';
import type { StubCore } from '../stub-core.ts';

const tags = ['control'];

export const recordingRoutes: FastifyPluginAsyncTypebox<{ core: StubCore }> = async (
  app,
  { core },
) => {
  app.get(
    '/recording',
    {
      schema: {
        tags,
        summary:
          'Everything recorded since the stub started, was reset or the recording was cleared: requests to the emulated APIs (as the journal keeps them), badges connecting, dropping, tapping, battery readings, clock changes and analytic events, oldest first; secrets never included. `badge-sim record` turns it into a scenario.',
        response: { 200: Recording },
      },
    },
    async () => core.recorder.list(),
  );

  app.delete(
    '/recording',
    {
      schema: {
        tags,
        summary:
          'Empty the recording (and its dropped count) and begin it again now, with the fixtures loaded; answers how many records it held.',
        response: { 200: RecordingCleared },
      },
    },
    async () => {
      const removed = core.recorder.clear();
      core.beginRecording('cleared');
      return { removed };
    },
  );
};
