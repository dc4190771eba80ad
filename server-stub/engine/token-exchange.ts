/**
 * `POST {auth_url}/oauth2/token` without HTTP: the request checked field by field in the order
 * the stub refuses (decision O5, T-rows), the client id against the environment's, then the
 * refresh token exchanged. Refusals are OAuth 2.0 error bodies (RFC 6749 §5.2), the shape
 * token clients read.
 */

import { ownValue } from '../../input/own.ts';
import type { EnvironmentName, StubSettings } from '../../protocol/control-api.schema.ts';
import type { OAuthErrorBody } from '../../protocol/service-api.schema.ts';
import type { TokensIssued } from '../../protocol/token-api.schema.ts';
import type { TokenRefusal, TokenStore } from './tokens.ts';

/** What a client is told when a token is refused, by reason (bearer and refresh tokens). */
export const TOKEN_REFUSALS: Record<TokenRefusal, string> = {
  missing: "send 'Authorization: Bearer <ACCESS_TOKEN>' (get one at oauth2/token)",
  unknown: 'the access token is not known: get a new one at oauth2/token',
  expired: 'the access token has expired (2 hours): get a new one at oauth2/token',
  id_token: 'that is an id_token: send the access_token as the bearer credential',
  other_environment: 'the token belongs to another environment',
  unknown_refresh_token: 'unknown refresh token',
  revoked_refresh_token: 'revoked refresh token',
};

export type TokenExchange =
  | { issued: TokensIssued }
  | { refused: { status: 400 | 401; body: OAuthErrorBody } };

const refused = (status: 400 | 401, error: string, description: string): TokenExchange => ({
  refused: { status, body: { error, error_description: description } },
});

/**
 * Exchanges the refresh token of a token request (a form or JSON, any value) for an access
 * and an id token of `environment`, or says why not. Own fields only: a client's word never
 * finds what every object inherits.
 */
export function exchangeRefreshToken(
  tokens: TokenStore,
  settings: StubSettings,
  environment: EnvironmentName,
  body: unknown,
): TokenExchange {
  const grantType = ownValue(body, 'grant_type');
  const clientId = ownValue(body, 'client_id');
  const refreshToken = ownValue(body, 'refresh_token');
  // A field present with the wrong type (JSON `["refresh_token"]`) is not "missing".
  const problem = (name: string, value: unknown) =>
    value === undefined || value === ''
      ? `${name} is required`
      : typeof value !== 'string'
        ? `${name} must be a string`
        : undefined;
  const grantProblem = problem('grant_type', grantType);
  if (grantProblem || typeof grantType !== 'string')
    return refused(400, 'invalid_request', grantProblem ?? '');
  if (grantType !== 'refresh_token')
    return refused(
      400,
      'unsupported_grant_type',
      `grant_type '${grantType}' is not supported: use refresh_token`,
    );
  const clientProblem = problem('client_id', clientId);
  if (clientProblem || typeof clientId !== 'string')
    return refused(400, 'invalid_request', clientProblem ?? '');
  const refreshProblem = problem('refresh_token', refreshToken);
  if (refreshProblem || typeof refreshToken !== 'string')
    return refused(400, 'invalid_request', refreshProblem ?? '');
  const clientRefusal = clientIdRefusal(settings, environment, clientId);
  if (clientRefusal) return refused(401, 'invalid_client', clientRefusal);
  const issued = tokens.exchange(refreshToken, environment, clientId);
  if (typeof issued === 'string') {
    return refused(
      400,
      'invalid_grant',
      `the refresh token is not valid here (${TOKEN_REFUSALS[issued]})`,
    );
  }
  return { issued };
}

/** Why an environment's token endpoint refuses a client id, or undefined if it does not. */
function clientIdRefusal(
  { environments, unknownClientIds }: StubSettings,
  environment: EnvironmentName,
  clientId: string,
): string | undefined {
  const own = environments[environment];
  if (clientId === own.cliClientId || clientId === own.sdkClientId) return undefined;
  const owner = Object.entries(environments).find(
    ([, other]) => clientId === other.cliClientId || clientId === other.sdkClientId,
  );
  if (owner) return `client_id is a client of the ${owner[0]} environment, not of ${environment}`;
  if (unknownClientIds === 'accept') return undefined;
  return `client_id is not a client of the ${environment} environment (the stub's client ids are settings, and unknown ones can be accepted: see badge-sim stub --help)`;
}
