/**
 * `/snapshot`: the whole world of the stub as one document, and a stub put back into one
 * (issue 32; docs/decisions.md WS1–WS19). Behind the control token like the fixtures: a
 * snapshot holds keys and tokens unless taken with `?secrets=omit`.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Health } from '../../../protocol/control-api.schema.ts';
import {
  SNAPSHOT_BODY_LIMIT,
  type SnapshotInclude,
  SnapshotQuery,
  WorldSnapshot,
} from '../../../protocol/snapshot.schema.ts';
import type { DeviceGateway } from '../../device-gateway.ts';
import { HttpError } from '../../http-errors.ts';
import type { LiveFeed } from '../../live-feed.ts';
import type { StubCore } from '../../stub-core.ts';
import { errors, healthOf, tags } from './control-answers.ts';

export const snapshotRoutes: FastifyPluginAsyncTypebox<{
  core: StubCore;
  gateway: DeviceGateway;
  feed: LiveFeed;
}> = async (app, { core, gateway, feed }) => {
  app.get(
    '/snapshot',
    {
      schema: {
        tags,
        summary: 'The whole world of the stub now, as one document (restore it with PUT).',
        querystring: SnapshotQuery,
        response: { 200: WorldSnapshot, ...errors },
      },
    },
    async (request, reply) => {
      // Loaded when first asked for: a stub nobody snapshots pays nothing for it.
      const { takeSnapshot } = await import('../../snapshot/world-snapshot.ts');
      const include = request.query.include?.split(',') as SnapshotInclude[] | undefined;
      const snapshot = takeSnapshot(core, {
        secrets: request.query.secrets,
        include,
        liveState: (id) => gateway.liveState(id),
      });
      // The badges this stub runs (--badges), at the same instant; none: nothing to add (WS24).
      const badges = include?.includes('badges') ? feed.localBadges?.snapshot?.() : undefined;
      if (badges !== undefined) snapshot.badges = badges;
      // Written once here: a world of 100,000 events is not walked again by a serializer.
      const text: unknown = JSON.stringify(snapshot);
      return reply.type('application/json; charset=utf-8').send(text as WorldSnapshot);
    },
  );

  app.put(
    '/snapshot',
    {
      bodyLimit: SNAPSHOT_BODY_LIMIT,
      schema: {
        tags,
        summary:
          'Restore a snapshot: checked whole first (a refusal changes nothing), then the world is put back.',
        body: WorldSnapshot,
        response: { 200: Health, 409: errors[400], ...errors },
      },
      // The document is checked by the restore, format first (a snapshot of another version
      // is told so, not that some field differs), and in one pass: the schema is for the docs.
      validatorCompiler: () => () => true,
    },
    async (request) => {
      const connected = gateway.connected();
      if (connected.length > 0) {
        throw new HttpError(
          409,
          'badges_connected',
          `${connected.length} badges are connected (${connected.slice(0, 3).join(', ')}${connected.length > 3 ? ', …' : ''}): a snapshot restores into a stub with none (WS8); stop the fleet or take the badges offline first`,
          'devices',
        );
      }
      const { restoreSnapshot, SnapshotError } = await import('../../snapshot/world-snapshot.ts');
      try {
        restoreSnapshot(core, request.body);
      } catch (error) {
        if (error instanceof SnapshotError)
          throw new HttpError(400, 'invalid_snapshot', error.message, error.field || 'body');
        throw error;
      }
      return healthOf(core);
    },
  );
};
