/**
 * The control API under `/_stub`, one plugin per capability (`control/`), as fastify/demo
 * registers its routes. Only tests use it; it is apart from the emulated paths and has no API
 * key. With a control token every route of it but health wants that token in its own header:
 * the lock and the documentation hook are this plugin's, so every capability inherits them.
 * The capabilities are registered in this order so that the OpenAPI document lists their
 * paths as it always has.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { CONTROL_PREFIX, CONTROL_TOKEN_HEADER } from '../../protocol/control-api.schema.ts';
import type { DeviceGateway } from '../device-gateway.ts';
import type { LiveFeed } from '../live-feed.ts';
import { answer, documentRoutes } from '../openapi.ts';
import type { StubCore } from '../stub-core.ts';
import { clockRoutes } from './control/clock.routes.ts';
import { controlTokenGuard } from './control/control-token.ts';
import { devicesRoutes } from './control/devices.routes.ts';
import { eventsRoutes } from './control/events.routes.ts';
import { faultRoutes } from './control/faults.routes.ts';
import { fixturesRoutes } from './control/fixtures.routes.ts';
import { journalRoutes } from './control/journal.routes.ts';
import { recordingRoutes } from './control/recording.routes.ts';
import { settingsRoutes } from './control/settings.routes.ts';
import { snapshotRoutes } from './control/snapshot.routes.ts';
import { stubRoutes } from './control/stub.routes.ts';
import { tasksRoutes } from './control/tasks.routes.ts';
import { triggerRoutes } from './control/trigger.routes.ts';
import { liveRoutes } from './live.routes.ts';

/** An OpenAPI security requirement that is met without credentials: the token is optional. */
const NO_CREDENTIALS: Record<string, string[]> = {};

export const controlRoutes: FastifyPluginAsyncTypebox<{
  core: StubCore;
  gateway: DeviceGateway;
  feed: LiveFeed;
  /** When given, every route here but `GET /health` wants it in CONTROL_TOKEN_HEADER. */
  controlToken?: string;
}> = async (app, { core, gateway, feed, controlToken }) => {
  if (controlToken !== undefined) app.addHook('onRequest', controlTokenGuard(controlToken));
  // The document is the same for every stub, locked or not: the token is optional in it.
  documentRoutes(app, (route) =>
    route.url === `${CONTROL_PREFIX}/health`
      ? undefined
      : {
          security: [NO_CREDENTIALS, { controlToken: [] }],
          answers: {
            401: answer(
              `The control API of this stub is locked and the ${CONTROL_TOKEN_HEADER} header is missing or wrong.`,
            ),
          },
        },
  );

  await app.register(stubRoutes, { core });
  await app.register(fixturesRoutes, { core });
  await app.register(clockRoutes, { core, gateway });
  await app.register(settingsRoutes, { core });
  await app.register(triggerRoutes, { core });
  await app.register(devicesRoutes, { core, gateway });
  await app.register(eventsRoutes, { core });
  await app.register(faultRoutes, { core });
  await app.register(journalRoutes, { core });
  await app.register(recordingRoutes, { core });
  await app.register(liveRoutes, { core, feed });
  await app.register(tasksRoutes, { core });
  await app.register(snapshotRoutes, { core, gateway, feed });
};
