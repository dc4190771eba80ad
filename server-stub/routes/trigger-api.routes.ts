/**
 * The token, workflow-trigger and device-info interface of one environment, as the spec
 * writes it: `{auth_url}/oauth2/token`, `{api_host}/ibot/workflow/{workflow_id}` and
 * `{api_host}/service/api/v1/device/{device_id}`, and the original's `{auth_url}/oauth2/validate`
 * that clients call after each token refresh. The stub serves every environment on its own
 * port, each under its prefix (pro at the root, qa under /qa by default).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import Type from 'typebox';
import { ownValue } from '../../input/own.ts';
import type { EnvironmentName } from '../../protocol/control-api.schema.ts';
import { DeviceInfo } from '../../protocol/device-info.schema.ts';
import { ErrorBody } from '../../protocol/service-api.schema.ts';
import {
  ACCESS_TOKEN_SCOPES,
  TokenRequest,
  TokensIssued,
  TokenValidation,
} from '../../protocol/token-api.schema.ts';
import {
  DeviceParams,
  DeviceQuery,
  WorkflowInvocationRequest,
  WorkflowInvoked,
  WorkflowParams,
  WorkflowQuery,
} from '../../protocol/trigger-api.schema.ts';
import type { DeviceGateway } from '../device-gateway.ts';
import { buildDeviceInfo } from '../device-info.ts';
import { TOKEN_REFUSALS } from '../engine/token-exchange.ts';
import type { AccessGrant } from '../engine/tokens.ts';
import { HttpError } from '../http-errors.ts';
import { keepRawBody } from '../journal-recorder.ts';
import { answer, checkedByHandler, documentRoutes, oauthAnswer } from '../openapi.ts';
import type { StubCore } from '../stub-core.ts';

export interface TriggerApiOptions {
  core: StubCore;
  gateway: DeviceGateway;
  environment: EnvironmentName;
}

// The handlers check the query strings and bodies themselves, after the credentials and in
// the shape each endpoint answers in (OAuth on the token endpoint): for fastify these schemas
// only document (decision O5).
const tokenRequest = checkedByHandler(TokenRequest);
const workflowQuery = checkedByHandler(WorkflowQuery);
const workflowInvocation = checkedByHandler(WorkflowInvocationRequest);
const deviceQuery = checkedByHandler(DeviceQuery);

/**
 * What a bearer credential grants in an environment; a refusal is 401 `invalid_token` with
 * `WWW-Authenticate` (the API host and oauth2/validate alike). The scheme word is
 * case-insensitive.
 */
function bearerGrant(
  core: StubCore,
  environment: EnvironmentName,
  request: FastifyRequest,
): AccessGrant {
  const header = request.headers.authorization;
  const bearer = header?.toLowerCase().startsWith('bearer ') ? header.slice(7).trim() : undefined;
  const granted = core.tokens.authorise(header ? bearer : undefined, environment);
  if (typeof granted === 'string') {
    throw new HttpError(401, 'invalid_token', TOKEN_REFUSALS[granted], 'authorization', {
      'www-authenticate': `Bearer error="invalid_token"`,
    });
  }
  return granted;
}

export async function triggerApiRoutes(
  app: FastifyInstance,
  { core, gateway, environment }: TriggerApiOptions,
) {
  // The token endpoint refuses in OAuth's shape (oauth2/validate answers as the API host does).
  documentRoutes(app, (route) =>
    route.url.endsWith('/oauth2/token')
      ? {
          answers: {
            400: oauthAnswer(
              '`invalid_request` (a field missing or not a string), `unsupported_grant_type`, `invalid_grant` (the refresh token is unknown, revoked or of another environment).',
            ),
            401: oauthAnswer('`invalid_client`: not a client id of this environment.'),
          },
        }
      : undefined,
  );

  // The token endpoint takes a form (as the spec says) and, as some SDKs send, JSON.
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string' },
    (request, body, done) => {
      keepRawBody(request, body as string);
      done(null, Object.fromEntries(new URLSearchParams(body as string)));
    },
  );

  authHostRoutes(app, core, environment);
  // The API host: behind a firewall that wants a User-Agent, then a bearer token.
  await app.register(apiHostRoutes, { core, gateway, environment });
}

/** The token endpoint and oauth2/validate, on the auth host. */
function authHostRoutes(app: FastifyInstance, core: StubCore, environment: EnvironmentName): void {
  app.post(
    '/oauth2/token',
    {
      schema: {
        tags: ['service'],
        summary: `Exchange a refresh token for an access token (${environment}).`,
        consumes: ['application/x-www-form-urlencoded', 'application/json'],
        body: tokenRequest,
        response: { 200: TokensIssued },
      },
    },
    async (request, reply) => {
      const exchange = core.exchangeToken(environment, request.body);
      // Refusals are OAuth bodies, documented for this route by the hook above.
      if ('refused' in exchange) {
        const { status, body } = exchange.refused;
        return (reply as FastifyReply).code(status).send(body);
      }
      reply.header('cache-control', 'no-store');
      return exchange.issued;
    },
  );

  // On the auth host beside oauth2/token, so no firewall (T6); the same bearer check as the
  // API host, so a token it calls valid works there (T19).
  app.get(
    '/oauth2/validate',
    {
      schema: {
        tags: ['service'],
        summary: `Validate an access token: its user, client and seconds left (${environment}).`,
        security: [{ bearerToken: [] }],
        response: { 200: TokenValidation, 401: ErrorBody },
      },
    },
    async (request, reply) => {
      const grant = bearerGrant(core, environment, request);
      reply.header('cache-control', 'no-store');
      return {
        client_id: grant.clientId,
        userid: grant.user.userId,
        email: grant.user.email,
        scopes: [...ACCESS_TOKEN_SCOPES],
        expires_in: grant.secondsLeft,
      } satisfies TokenValidation;
    },
  );
}

/** The workflow trigger and device information, on the API host. */
async function apiHostRoutes(
  api: FastifyInstance,
  { core, gateway, environment }: TriggerApiOptions,
) {
  documentRoutes(api, apiHostDocs);
  api.addHook('onRequest', (request, _reply, done) => {
    try {
      firewall(request);
      done();
    } catch (error) {
      done(error as Error);
    }
  });

  api.post(
    '/ibot/workflow/:workflow_id',
    {
      schema: {
        tags: ['service'],
        summary: `Invoke an HTTP workflow (${environment}).`,
        params: WorkflowParams,
        querystring: workflowQuery,
        body: workflowInvocation,
        response: {
          200: WorkflowInvoked,
          404: answer(
            'No such workflow in the account (`unknown_workflow`), not an HTTP workflow (`not_an_http_workflow`), or no such user or target device.',
          ),
          405: answer('The workflow is triggered with another method (`wrong_trigger_method`).'),
        },
      },
    },
    async (request) => {
      const { workflow_id: workflowId } = request.params as WorkflowParams;
      const subscriberId = grantedAccount(core, environment, request);
      return core.invokeWorkflow(environment, subscriberId, workflowId, {
        userId: ownValue(request.query, 'user_id'),
        body: request.body,
      });
    },
  );

  api.get(
    `/${core.settings.brandWord}/api/v1/device/:device_id`,
    {
      schema: {
        tags: ['service'],
        summary: `Device information (${environment}).`,
        params: DeviceParams,
        querystring: deviceQuery,
        response: { 200: DeviceInfo },
      },
    },
    async (request) => {
      const { device_id: deviceId } = request.params as DeviceParams;
      const subscriberId = grantedAccount(core, environment, request);
      const device = core.accountDevice(subscriberId, deviceId, 'device_id');
      return buildDeviceInfo({
        device,
        fixture: core.deviceFixture(device.id),
        live: gateway.liveState(device.id),
        groups: core.directory.groups(subscriberId).filter((g) => g.members.includes(device.id)),
      });
    },
  );
}

/** What every route of the API host documents: its credential, header and refusals. */
function apiHostDocs() {
  return {
    security: [{ bearerToken: [] }],
    headers: {
      'user-agent': Type.String({
        minLength: 1,
        description: 'Any value: the firewall in front of the API host wants one (403).',
      }),
    },
    answers: {
      400: answer('`subscriber_id` is missing from the query string.'),
      401: answer(
        'No bearer token, or one that is unknown, expired, an id_token or of another environment (`WWW-Authenticate: Bearer`).',
      ),
      403: answer(
        'No `User-Agent` header (`firewall`), or the token does not grant `subscriber_id` (`forbidden`).',
      ),
      404: answer('No such device in the account (`unknown_device`).'),
    },
  };
}

/** The account of the query's `subscriber_id`, if the bearer token grants it; else 400, 401 or 403. */
function grantedAccount(
  core: StubCore,
  environment: EnvironmentName,
  request: FastifyRequest,
): string {
  const granted = bearerGrant(core, environment, request);
  const subscriberId = ownValue(request.query, 'subscriber_id');
  if (typeof subscriberId !== 'string' || subscriberId === '') {
    throw new HttpError(
      400,
      'invalid_field',
      'subscriber_id is required in the query string',
      'subscriber_id',
    );
  }
  if (subscriberId !== granted.subscriberId) {
    throw new HttpError(
      403,
      'forbidden',
      `this access token does not grant subscriber ${subscriberId}`,
      'subscriber_id',
    );
  }
  return subscriberId;
}

/** The firewall in front of the API host refuses a request without a User-Agent first. */
function firewall(request: FastifyRequest): void {
  const agent = request.headers['user-agent'];
  if (typeof agent !== 'string' || agent.trim() === '') {
    throw new HttpError(
      403,
      'firewall',
      'requests to the API host need a User-Agent header (any value)',
      'user-agent',
    );
  }
}
