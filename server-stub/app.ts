/**
 * The stub as one fastify plugin (the fastify/demo shape): strict validation, one error
 * handler, the OpenAPI document, the emulated service API and the control API beside it.
 * `start-stub.ts` is the process around it.
 */
import swagger from '@fastify/swagger';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { CONTROL_PREFIX } from '../protocol/control-api.schema.ts';
import { DeviceGateway } from './device-gateway.ts';
import { handleError, handleNotFound } from './http-errors.ts';
import { controlRoutes } from './routes/control.routes.ts';
import { serviceApiRoutes } from './routes/service-api.routes.ts';
import type { StubCore } from './stub-core.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** The stub's core: settings, clock, fixtures and engine. */
    stub: StubCore;
    /** Where virtual badges connect (WebSocket on the same port). */
    gateway: DeviceGateway;
  }
}

export interface StubAppOptions {
  core: StubCore;
}

async function stubApp(app: FastifyInstance, { core }: StubAppOptions): Promise<void> {
  app.decorate('stub', core);
  const gateway = new DeviceGateway(core);
  gateway.attach(app.server);
  app.decorate('gateway', gateway);
  // Badges are told the stub is going before the HTTP server waits for its connections.
  app.addHook('preClose', async () => gateway.close());

  // fastify's default Ajv coerces "5" to 5 and drops unknown fields in silence. Bodies are
  // JSON and keep their types; only the query string and path, which are text, are coerced.
  const ajvOptions = { allErrors: false, strict: false, useDefaults: true } as const;
  const bodyAjv = addFormats.default(
    new Ajv({
      ...ajvOptions,
      coerceTypes: false,
      removeAdditional: core.settings.unknownFields === 'ignore',
    }),
  );
  const textAjv = addFormats.default(
    new Ajv({ ...ajvOptions, coerceTypes: true, removeAdditional: false }),
  );
  app.setValidatorCompiler(({ schema, httpPart }) =>
    (httpPart === 'body' ? bodyAjv : textAjv).compile(schema),
  );

  // Bodies are JSON only: any other media type gets 415. Clients commonly send `Content-Type: application/json` on a DELETE with no body.
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser(['application/json', 'text/plain']);
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (body === '') done(null, undefined);
    else parseJson(request, body as string, done);
  });

  app.setErrorHandler(handleError);
  app.setNotFoundHandler(handleNotFound);

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'badge-sim stub',
        version: '1',
        description:
          'The voice-badge alerting service as badge-sim emulates it (tag `service`), and the ' +
          `control API that only tests use, under ${CONTROL_PREFIX} (tag \`control\`).`,
      },
      tags: [
        { name: 'service', description: 'The notification and events interface of the spec.' },
        {
          name: 'control',
          description: 'badge-sim control API: reset, fixtures, clock, transcripts.',
        },
      ],
      components: {
        securitySchemes: {
          apiKey: {
            type: 'apiKey',
            in: 'header',
            name: 'Authorization',
            description: `${core.settings.authScheme} <API_KEY>`,
          },
        },
      },
    },
  });

  await app.register(serviceApiRoutes, { core });
  await app.register(controlRoutes, { core, gateway, prefix: CONTROL_PREFIX });
  app.get(`${CONTROL_PREFIX}/openapi.json`, { schema: { hide: true } }, async () => app.swagger());
}

export default fp(stubApp, { name: 'badge-sim-stub', fastify: '5.x' });
