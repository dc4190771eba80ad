/**
 * The live stream (`GET /_stub/stream`, server-sent events) and the switch of a badge the stub
 * runs (`POST /_stub/devices/{id}/offline`, `/online`): what the dashboard needs beside the
 * rest of the control API. Registered inside the control routes, so a control token locks
 * them too (the page sends it in the header: `fetch`, not `EventSource`, reads the stream).
 */
import type { ServerResponse } from 'node:http';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ControlDeviceParams } from '../../protocol/control-api.schema.ts';
import {
  DeviceSwitched,
  STREAM_CLIENTS_MAX,
  STREAM_DESCRIPTION,
  STREAM_MAX_BUFFERED_BYTES,
  StreamMessages,
  StreamQuery,
} from '../../protocol/live-stream.schema.ts';
import { ErrorBody } from '../../protocol/service-api.schema.ts';
import { HttpError } from '../http-errors.ts';
import type { LiveFeed } from '../live-feed.ts';
import type { StubCore } from '../stub-core.ts';

const tags = ['control'];

/** One-off snapshots (`?once=true`) still being written: they count toward the stream cap. */
let snapshotsInFlight = 0;

/**
 * A client that takes none of what it was sent for the stalled-answer time (30 s by default,
 * decision UI2) is dropped: a reader that never reads cannot hold a snapshot's bytes, or a
 * place among the streams, for ever. Returns what to call after each write.
 */
function stallGuard(raw: ServerResponse, stalledMs: number): () => void {
  let timer: NodeJS.Timeout | undefined;
  const watch = () => {
    if (raw.writableLength > 0 && timer === undefined)
      timer = setTimeout(() => raw.destroy(), stalledMs).unref();
  };
  const taken = () => {
    clearTimeout(timer);
    timer = undefined;
    watch();
  };
  raw.on('drain', taken);
  raw.once('finish', taken);
  raw.once('close', () => clearTimeout(timer));
  return watch;
}

export const liveRoutes: FastifyPluginAsyncTypebox<{ core: StubCore; feed: LiveFeed }> = async (
  app,
  { core, feed },
) => {
  app.get(
    '/stream',
    {
      schema: {
        tags,
        summary:
          'The live stream (text/event-stream): a snapshot of clock, devices, tasks and the newest events, then updates as they change (what /_stub/ui/ shows).',
        querystring: StreamQuery,
        response: {
          200: {
            description: STREAM_DESCRIPTION,
            content: { 'text/event-stream': { schema: StreamMessages } },
          },
          429: ErrorBody,
        },
      },
    },
    async (request, reply) => {
      // Every open answer counts, a one-off snapshot too: each holds its snapshot's bytes.
      if (feed.subscribers + snapshotsInFlight >= STREAM_CLIENTS_MAX) {
        throw new HttpError(
          429,
          'too_many_streams',
          `${STREAM_CLIENTS_MAX} streams are open already, the most at once; close one (a dashboard tab) and try again`,
        );
      }
      const raw = reply.raw;
      reply.hijack();
      raw.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-store',
        'x-content-type-options': 'nosniff',
        connection: 'keep-alive',
      });
      // HEAD (fastify answers it with this handler): the headers, and nothing to wait for.
      if (request.method === 'HEAD') {
        raw.end();
        return;
      }
      const watch = stallGuard(raw, core.settings.httpTimeouts.stalledAnswerMs);
      const write = (name: string, data: string) => {
        const ok = raw.write(`event: ${name}\ndata: ${data}\n\n`);
        watch();
        return ok;
      };
      if (request.query.once === 'true') {
        snapshotsInFlight++;
        raw.once('close', () => snapshotsInFlight--);
        write('snapshot', JSON.stringify(feed.snapshot()));
        raw.end();
        return;
      }
      const unsubscribe = feed.subscribe({
        write,
        writable: () => raw.writableLength <= STREAM_MAX_BUFFERED_BYTES,
        end: () => raw.end(),
      });
      const onDrain = () => feed.drained();
      raw.on('drain', onDrain);
      raw.once('close', () => {
        unsubscribe();
        raw.off('drain', onDrain);
      });
    },
  );

  const switchRoute = (online: boolean) =>
    app.post(
      `/devices/:device_id/${online ? 'online' : 'offline'}`,
      {
        schema: {
          tags,
          summary: online
            ? 'Bring back a badge the stub runs (--badges): it connects again.'
            : 'Take a badge the stub runs (--badges) off the network: it closes its connection and stays offline.',
          params: ControlDeviceParams,
          response: { 200: DeviceSwitched, 400: ErrorBody, 404: ErrorBody, 409: ErrorBody },
        },
      },
      async (request) => {
        const { device_id: deviceId } = request.params;
        if (!core.directory.device(deviceId))
          throw new HttpError(404, 'unknown_device', `no device '${deviceId}'`, 'device_id');
        const badges = feed.localBadges;
        if (!badges?.has(deviceId)) {
          throw new HttpError(
            409,
            'not_run_by_stub',
            `device '${deviceId}' is not a badge this stub runs (start it with --badges, or switch the badge in the fleet that runs it)`,
            'device_id',
          );
        }
        badges.setOnline(deviceId, online);
        return { device_id: deviceId, online };
      },
    );
  switchRoute(false);
  switchRoute(true);
};
