/**
 * `GET` and `DELETE /_stub/recording`: the session recording (recorder.ts). Registered inside
 * the control routes, so a control token locks it too.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Recording, RecordingCleared } from '../../../protocol/recording.schema.ts';
import type { StubCore } from '../../stub-core.ts';
import { tags } from './control-answers.ts';

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
          'Everything recorded since the recording started (`--record`, `POST`) or the stub was last reset: requests to the emulated APIs (as the journal keeps them), badges connecting, dropping, tapping, battery readings, clock changes and analytic events, oldest first; secrets never included. `badge-sim record` turns it into a scenario.',
        response: { 200: Recording },
      },
    },
    async () => core.recorder.list(),
  );

  app.post(
    '/recording',
    {
      schema: {
        tags,
        summary:
          'Start recording afresh: what the recording held is removed, and it begins with the fixtures loaded and the badges connected now; answers how many records it removed.',
        response: { 200: RecordingCleared },
      },
    },
    async () => ({ removed: core.startRecording() }),
  );

  app.delete(
    '/recording',
    {
      schema: {
        tags,
        summary:
          'Stop recording and empty it (a file of --record gets no more lines until a POST); answers how many records it held.',
        response: { 200: RecordingCleared },
      },
    },
    async () => ({ removed: core.recorder.stop() }),
  );
};
