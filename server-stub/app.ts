/**
 * The stub as one fastify plugin (the fastify/demo shape): strict validation, one error
 * handler, the OpenAPI document, the emulated service API and the control API beside it.
 * `start-stub.ts` is the process around it.
 */
import swagger, { type FastifyDynamicSwaggerOptions } from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import {
  CONTROL_PREFIX,
  CONTROL_TOKEN_HEADER,
  type EnvironmentName,
} from '../protocol/control-api.schema.ts';
import { type ValidateFunction, validatorOf } from '../protocol/validator.ts';
import { DeviceGateway } from './device-gateway.ts';
import { registerFaultHook } from './fault-hook.ts';
import { handleError, handleNotFound } from './http-errors.ts';
import { keepRawBody, recordRequests } from './journal-recorder.ts';
import { parseJsonBody } from './json-body.ts';
import { LiveFeed } from './live-feed.ts';
import { commonAnswers, documentRoutes, isCheckedByHandler } from './openapi.ts';
import { compiledSerializer } from './response-serializers.ts';
import { asyncApiRoutes } from './routes/asyncapi.routes.ts';
import { controlRoutes } from './routes/control.routes.ts';
import { serviceApiRoutes } from './routes/service-api.routes.ts';
import { triggerApiRoutes } from './routes/trigger-api.routes.ts';
import { uiRoutes } from './routes/ui.routes.ts';
import type { StubCore } from './stub-core.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** The stub's core: settings, clock, fixtures and engine. */
    stub: StubCore;
    /** Where virtual badges connect (WebSocket on the same port). */
    gateway: DeviceGateway;
    /** What the live stream (`/_stub/stream`) and so the dashboard hear. */
    feed: LiveFeed;
  }
}

interface StubAppOptions {
  core: StubCore;
  /** Locks the control API (all of `/_stub` but health) with this token; open without. */
  controlToken?: string;
}

async function stubApp(
  app: FastifyInstance,
  { core, controlToken }: StubAppOptions,
): Promise<void> {
  app.decorate('stub', core);
  // First of all hooks: the journal sees every request, whatever a later hook does to it.
  recordRequests(app, core);
  const gateway = new DeviceGateway(core);
  gateway.attach(app.server);
  app.decorate('gateway', gateway);
  // Badges are told the stub is going before the HTTP server waits for its connections.
  app.addHook('preClose', async () => gateway.close());
  const feed = new LiveFeed(core, gateway);
  app.decorate('feed', feed);
  // Before the server waits for its connections: open streams end, or it would wait for ever.
  app.addHook('preClose', async () => feed.close());

  // fastify's default Ajv coerces "5" to 5 and drops unknown fields in silence. Bodies are
  // JSON and keep their types; only the query string and path, which are text, are read as
  // numbers, and only when written as plain decimals (`readDecimals`): Ajv's own coercion
  // would take `Infinity`, `1e2`, `0x10` and ` 5`. Compiled once per process and shared by
  // every stub (protocol/validator.ts).
  app.setValidatorCompiler(({ schema, httpPart }) =>
    isCheckedByHandler(schema)
      ? acceptAll
      : httpPart === 'body'
        ? validatorOf(schema, { unknownFields: core.settings.unknownFields })
        : readDecimals(schema, validatorOf(schema)),
  );
  // A response schema decides what is written: fast-json-stringify drops what it does not
  // list. Error bodies are written whole (their schemas only document them, O4).
  app.setSerializerCompiler(({ schema, httpStatus }) =>
    /^[45]/.test(String(httpStatus)) ? JSON.stringify : compiledSerializer(schema),
  );

  // Bodies are JSON only: any other media type gets 415. Clients commonly send `Content-Type: application/json` on a DELETE with no body.
  // Nesting is bounded and `__proto__` keys are refused by name (json-body.ts).
  app.removeContentTypeParser(['application/json', 'text/plain']);
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    keepRawBody(request, body as string);
    if (body === '') return done(null, undefined);
    try {
      done(null, parseJsonBody(body as string));
    } catch (error) {
      done(error as Error, undefined);
    }
  });

  // Faults come first: they see every request to the emulated APIs, unknown paths included,
  // before any route's checks (HF7). Registered before the routes and the 404 handler.
  registerFaultHook(app, core);
  app.setErrorHandler(handleError);
  app.setNotFoundHandler(handleNotFound);
  // Every route documents what any route can answer; its plugin and its own schema add the
  // rest (openapi.ts). Registered before the routes: a hook sees only routes added after it.
  documentRoutes(app, (route) => ({ answers: commonAnswers(route) }));

  await app.register(swagger, { openapi: openApiDocument(core.settings.authScheme) });

  await app.register(serviceApiRoutes, { core });
  for (const [environment, settings] of Object.entries(core.settings.environments)) {
    await app.register(triggerApiRoutes, {
      core,
      gateway,
      environment: environment as EnvironmentName,
      prefix: settings.prefix,
    });
  }
  await app.register(controlRoutes, {
    core,
    gateway,
    feed,
    controlToken,
    prefix: CONTROL_PREFIX,
  });
  // The page itself is open, locked or not: it holds no secret and asks for the token (UI3).
  await app.register(uiRoutes, { prefix: `${CONTROL_PREFIX}/ui` });
  // The OpenAPI document stays open, locked or not: it is the same for every stub and holds
  // no secret, and tools that read it send no custom header.
  app.get(`${CONTROL_PREFIX}/openapi.json`, { schema: { hide: true } }, async () => app.swagger());
  await app.register(asyncApiRoutes, { prefix: CONTROL_PREFIX });
}

export default fp(stubApp, { name: 'badge-sim-stub', fastify: '5.x' });

/** The OpenAPI document's head: its two tags and how each part is authorised. */
function openApiDocument(authScheme: string): FastifyDynamicSwaggerOptions['openapi'] {
  return {
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
          description: `${authScheme} <API_KEY>`,
        },
        bearerToken: {
          type: 'http',
          scheme: 'bearer',
          description: 'An access token from `oauth2/token` of the same environment.',
        },
        controlToken: {
          type: 'apiKey',
          in: 'header',
          name: CONTROL_TOKEN_HEADER,
          description: 'Only when the stub was started with a control token.',
        },
      },
    },
  };
}

const acceptAll = (() => true) as unknown as ValidateFunction;

/** A whole number in a query string or path: decimal digits, at most 15 (exact in a double). */
const DECIMAL_INTEGER = /^-?\d{1,15}$/;
const DECIMAL_NUMBER = /^-?\d{1,15}(\.\d{1,15})?$/;

/**
 * Wraps the validator of a query string or path schema: a text value of a number field that is
 * written as a plain decimal becomes that number; any other text stays text, and the schema
 * refuses it (`must be integer`), naming the field.
 */
function readDecimals(schema: object, validate: ValidateFunction): ValidateFunction {
  const properties = (schema as { properties?: Record<string, { type?: unknown }> }).properties;
  const numeric = new Map<string, RegExp>();
  for (const [name, property] of Object.entries(properties ?? {})) {
    if (property.type === 'integer') numeric.set(name, DECIMAL_INTEGER);
    if (property.type === 'number') numeric.set(name, DECIMAL_NUMBER);
  }
  if (numeric.size === 0) return validate;
  const wrapped = ((data: unknown) => {
    if (data !== null && typeof data === 'object') {
      const fields = data as Record<string, unknown>;
      for (const [name, pattern] of numeric) {
        if (!Object.hasOwn(fields, name)) continue;
        const text = fields[name];
        if (typeof text === 'string' && pattern.test(text)) fields[name] = Number(text);
      }
    }
    const valid = validate(data);
    wrapped.errors = validate.errors;
    return valid;
  }) as ValidateFunction;
  return wrapped;
}
