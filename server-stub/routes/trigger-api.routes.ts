/**
 * The token, workflow-trigger and device-info interface of one environment, as the spec
 * writes it: `{auth_url}/oauth2/token`, `{api_host}/ibot/workflow/{workflow_id}` and
 * `{api_host}/service/api/v1/device/{device_id}`, and the original's `{auth_url}/oauth2/validate`
 * that clients call after each token refresh. The stub serves every environment on its own
 * port, each under its prefix (pro at the root, qa under /qa by default).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import Type from 'typebox';
import { formatTimestamp } from '../../protocol/clock.ts';
import type { EnvironmentName } from '../../protocol/control-api.schema.ts';
import { DeviceInfo } from '../../protocol/device-info.schema.ts';
import { ownValue } from '../../protocol/own.ts';
import { ErrorBody } from '../../protocol/service-api.schema.ts';
import { ACCESS_TOKEN_SCOPES, TokenValidation } from '../../protocol/token-api.schema.ts';
import type { DeviceGateway } from '../device-gateway.ts';
import { buildDeviceInfo } from '../device-info.ts';
import type { AccessGrant, TokenRefusal } from '../engine/tokens.ts';
import { HttpError } from '../http-errors.ts';
import { jsonBytes, MAX_STORED_JSON_BYTES } from '../json-body.ts';
import { answer, checkedByHandler, documentRoutes, oauthAnswer } from '../openapi.ts';
import type { StubCore } from '../stub-core.ts';

export interface TriggerApiOptions {
  core: StubCore;
  gateway: DeviceGateway;
  environment: EnvironmentName;
}

/** OAuth 2.0 error answers (RFC 6749 §5.2), the shape token clients expect. */
function oauthError(reply: FastifyReply, status: number, error: string, description: string) {
  return reply.code(status).send({ error, error_description: description });
}

// Request schemas for the OpenAPI document only: the handlers check these themselves, after
// the credentials and in the shape each endpoint answers in (OAuth on the token endpoint).
const TokenRequest = checkedByHandler(
  Type.Object({
    grant_type: Type.Literal('refresh_token'),
    client_id: Type.String({
      minLength: 1,
      description: "The environment's CLI or SDK client id (`GET /_stub/environments`).",
    }),
    refresh_token: Type.String({ minLength: 1 }),
  }),
);
const AccountQuery = {
  subscriber_id: Type.String({
    minLength: 1,
    description: 'The account; the access token must grant it.',
  }),
};
const WorkflowQuery = checkedByHandler(
  Type.Object({
    ...AccountQuery,
    user_id: Type.String({ minLength: 1, description: 'The device of the user who invokes it.' }),
  }),
);
const DeviceQuery = checkedByHandler(Type.Object(AccountQuery));
const WorkflowInvocation = checkedByHandler(
  Type.Object({
    action: Type.Literal('invoke'),
    action_args: Type.Optional(
      Type.Object(
        {},
        {
          additionalProperties: true,
          description: `Free-form, at most ${MAX_STORED_JSON_BYTES} bytes as JSON; kept (\`GET /_stub/workflows/invocations\`).`,
        },
      ),
    ),
    target_device_ids: Type.Optional(
      Type.Array(Type.String(), { description: 'Devices of the account that also hear it.' }),
    ),
  }),
);

const BEARER_REFUSALS: Record<TokenRefusal, string> = {
  missing: "send 'Authorization: Bearer <ACCESS_TOKEN>' (get one at oauth2/token)",
  unknown: 'the access token is not known: get a new one at oauth2/token',
  expired: 'the access token has expired (2 hours): get a new one at oauth2/token',
  id_token: 'that is an id_token: send the access_token as the bearer credential',
  other_environment: 'the token belongs to another environment',
  unknown_refresh_token: 'unknown refresh token',
  revoked_refresh_token: 'revoked refresh token',
};

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
    throw new HttpError(401, 'invalid_token', BEARER_REFUSALS[granted], 'authorization', {
      'www-authenticate': `Bearer error="invalid_token"`,
    });
  }
  return granted;
}

export async function triggerApiRoutes(
  app: FastifyInstance,
  { core, gateway, environment }: TriggerApiOptions,
) {
  /** Why this environment's token endpoint refuses a client id, or undefined if it does not. */
  const clientIdRefusal = (clientId: string): string | undefined => {
    const { environments, unknownClientIds } = core.settings;
    const own = environments[environment];
    if (clientId === own.cliClientId || clientId === own.sdkClientId) return undefined;
    const owner = Object.entries(environments).find(
      ([, other]) => clientId === other.cliClientId || clientId === other.sdkClientId,
    );
    if (owner) return `client_id is a client of the ${owner[0]} environment, not of ${environment}`;
    if (unknownClientIds === 'accept') return undefined;
    return `client_id is not a client of the ${environment} environment (the stub's client ids are settings, and unknown ones can be accepted: see badge-sim stub --help)`;
  };

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
    (_request, body, done) => {
      done(null, Object.fromEntries(new URLSearchParams(body as string)));
    },
  );

  app.post(
    '/oauth2/token',
    {
      schema: {
        tags: ['service'],
        summary: `Exchange a refresh token for an access token (${environment}).`,
        consumes: ['application/x-www-form-urlencoded', 'application/json'],
        body: TokenRequest,
      },
    },
    async (request, reply) => {
      // Own fields only: a client word never finds what every object inherits.
      const grantType = ownValue(request.body, 'grant_type');
      const clientId = ownValue(request.body, 'client_id');
      const refreshToken = ownValue(request.body, 'refresh_token');
      // A field present with the wrong type (JSON `["refresh_token"]`) is not "missing".
      const problem = (name: string, value: unknown) =>
        value === undefined || value === ''
          ? `${name} is required`
          : typeof value !== 'string'
            ? `${name} must be a string`
            : undefined;
      const grantProblem = problem('grant_type', grantType);
      if (grantProblem || typeof grantType !== 'string')
        return oauthError(reply, 400, 'invalid_request', grantProblem ?? '');
      if (grantType !== 'refresh_token')
        return oauthError(
          reply,
          400,
          'unsupported_grant_type',
          `grant_type '${grantType}' is not supported: use refresh_token`,
        );
      const clientProblem = problem('client_id', clientId);
      if (clientProblem || typeof clientId !== 'string')
        return oauthError(reply, 400, 'invalid_request', clientProblem ?? '');
      const refreshProblem = problem('refresh_token', refreshToken);
      if (refreshProblem || typeof refreshToken !== 'string')
        return oauthError(reply, 400, 'invalid_request', refreshProblem ?? '');
      const clientRefusal = clientIdRefusal(clientId);
      if (clientRefusal) return oauthError(reply, 401, 'invalid_client', clientRefusal);
      const issued = core.tokens.exchange(refreshToken, environment, clientId);
      if (typeof issued === 'string') {
        return oauthError(
          reply,
          400,
          'invalid_grant',
          `the refresh token is not valid here (${BEARER_REFUSALS[issued]})`,
        );
      }
      reply.header('cache-control', 'no-store');
      return issued;
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

  // The API host: behind a firewall that wants a User-Agent, then a bearer token.
  await app.register(async (api) => {
    documentRoutes(api, () => ({
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
    }));
    api.addHook('onRequest', (request, _reply, done) => {
      try {
        firewall(request);
        done();
      } catch (error) {
        done(error as Error);
      }
    });

    const account = (request: FastifyRequest, subscriberId: unknown): string => {
      const granted = bearerGrant(core, environment, request);
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
    };
    const deviceOf = (subscriberId: string, deviceId: string, field: string) => {
      const device = core.directory.device(deviceId);
      if (!device || device.subscriberId !== subscriberId) {
        throw new HttpError(
          404,
          'unknown_device',
          `no device '${deviceId}' in account ${subscriberId}`,
          field,
        );
      }
      return device;
    };

    api.post(
      '/ibot/workflow/:workflow_id',
      {
        schema: {
          tags: ['service'],
          summary: `Invoke an HTTP workflow (${environment}).`,
          querystring: WorkflowQuery,
          body: WorkflowInvocation,
          response: {
            404: answer(
              'No such workflow in the account (`unknown_workflow`), not an HTTP workflow (`not_an_http_workflow`), or no such user or target device.',
            ),
            405: answer('The workflow is triggered with another method (`wrong_trigger_method`).'),
          },
        },
      },
      async (request) => {
        const { workflow_id: workflowId } = request.params as { workflow_id: string };
        const subscriberId = account(request, ownValue(request.query, 'subscriber_id'));
        const userId = ownValue(request.query, 'user_id');
        if (typeof userId !== 'string' || userId === '') {
          throw new HttpError(
            400,
            'invalid_field',
            'user_id is required in the query string',
            'user_id',
          );
        }
        const body = request.body;
        if (!body || typeof body !== 'object' || Array.isArray(body)) {
          throw new HttpError(
            400,
            'invalid_field',
            'the body must be a JSON object such as {"action":"invoke"}',
            'body',
          );
        }
        const actionArgs = ownValue(body, 'action_args');
        if (ownValue(body, 'action') !== 'invoke')
          throw new HttpError(400, 'invalid_field', "action must be 'invoke'", 'action');
        if (
          actionArgs !== undefined &&
          (typeof actionArgs !== 'object' || actionArgs === null || Array.isArray(actionArgs))
        ) {
          throw new HttpError(400, 'invalid_field', 'action_args must be an object', 'action_args');
        }
        // Stored and shown later (GET /_stub/workflows/invocations): bounded in size; its depth
        // is bounded by the body parser.
        if (actionArgs !== undefined && jsonBytes(actionArgs) > MAX_STORED_JSON_BYTES) {
          throw new HttpError(
            400,
            'too_large',
            `action_args is over ${MAX_STORED_JSON_BYTES} bytes as JSON`,
            'action_args',
          );
        }
        const targets = ownValue(body, 'target_device_ids');
        if (
          targets !== undefined &&
          (!Array.isArray(targets) || targets.some((t) => typeof t !== 'string'))
        ) {
          throw new HttpError(
            400,
            'invalid_field',
            'target_device_ids must be an array of device ids',
            'target_device_ids',
          );
        }
        const workflow = core.fixtures.accounts
          .find((a) => a.subscriber_id === subscriberId)
          ?.workflows?.find((w) => w.id === workflowId);
        if (!workflow)
          throw new HttpError(
            404,
            'unknown_workflow',
            `no workflow '${workflowId}' installed in account ${subscriberId}`,
            'workflow_id',
          );
        if (!workflow.id.startsWith('wf_http_')) {
          throw new HttpError(
            404,
            'not_an_http_workflow',
            `workflow '${workflowId}' is not an HTTP workflow (its id does not begin wf_http_)`,
            'workflow_id',
          );
        }
        if ((workflow.trigger_method ?? 'POST') !== 'POST') {
          throw new HttpError(
            405,
            'wrong_trigger_method',
            `workflow '${workflowId}' is triggered with ${workflow.trigger_method}, not POST`,
            'workflow_id',
          );
        }
        const user = deviceOf(subscriberId, userId, 'user_id');
        const targetDevices = ((targets as string[] | undefined) ?? []).map((id, i) =>
          deviceOf(subscriberId, id, `target_device_ids[${i}]`),
        );
        const invocationId = `inv_${core.ids.taskId()}`;
        core.invocations.push({
          invocation_id: invocationId,
          environment,
          workflow_id: workflowId,
          subscriber_id: subscriberId,
          user_id: user.id,
          action: 'invoke',
          ...(actionArgs === undefined ? {} : { action_args: actionArgs }),
          ...(targets === undefined ? {} : { target_device_ids: targets as string[] }),
          at: formatTimestamp(core.clock.now()),
        });
        // The effect a badge can observe: the workflow's text, spoken on the user's badge and
        // on every target, once each.
        if (workflow.speak) {
          for (const id of new Set([user.id, ...targetDevices.map((d) => d.id)]))
            core.engine.say(id, workflow.speak, invocationId);
        }
        return { status: 'invoked', invocation_id: invocationId };
      },
    );

    api.get(
      `/${core.settings.brandWord}/api/v1/device/:device_id`,
      {
        schema: {
          tags: ['service'],
          summary: `Device information (${environment}).`,
          querystring: DeviceQuery,
          response: { 200: DeviceInfo },
        },
      },
      async (request) => {
        const { device_id: deviceId } = request.params as { device_id: string };
        const subscriberId = account(request, ownValue(request.query, 'subscriber_id'));
        const device = deviceOf(subscriberId, deviceId, 'device_id');
        return buildDeviceInfo({
          device,
          fixture: core.deviceFixture(device.id),
          live: gateway.liveState(device.id),
          groups: core.directory.groups(subscriberId).filter((g) => g.members.includes(device.id)),
        });
      },
    );
  });
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
