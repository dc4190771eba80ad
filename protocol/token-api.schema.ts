/**
 * Shapes of the token interface (`{auth_url}/oauth2/…`) beyond what the spec shows: the
 * client ids an environment accepts, the user a refresh token was issued to, and the answer
 * of `GET oauth2/validate`. One declaration for the fixtures, the control API, the routes,
 * the OpenAPI document and the client's types.
 */
import Type, { type Static } from 'typebox';

/** A client id as OAuth writes it: visible ASCII, no spaces (1 to 128 characters). */
export const CLIENT_ID_PATTERN = '^[!-~]{1,128}$';
export const ClientId = (description: string) =>
  Type.String({ pattern: CLIENT_ID_PATTERN, description });

/** The user a refresh token was issued to: an id, and an email address. */
const TOKEN_USER_ID_PATTERN = '^[A-Za-z0-9._-]{1,128}$';
export const TokenUserId = Type.String({
  pattern: TOKEN_USER_ID_PATTERN,
  description:
    "The user the refresh token was issued to (`userid` of oauth2/validate). Default 'user-<subscriber_id>'.",
});
export const TokenUserEmail = Type.String({
  maxLength: 254,
  pattern: '^[^\\s@]+@[^\\s@]+$',
  description: "That user's email address. Default '<user_id>@badge-sim.test'.",
});

/** What an access token grants, as every access token of the stub does. */
export const ACCESS_TOKEN_SCOPES = ['workflow:invoke', 'device:read'] as const;

/** The answer of `GET {auth_url}/oauth2/validate` for a valid access token. */
export const TokenValidation = Type.Object({
  client_id: Type.String({ description: 'The client id the token was requested with.' }),
  userid: Type.String({ description: 'The user the refresh token was issued to.' }),
  email: Type.String({ description: "That user's email address." }),
  scopes: Type.Array(Type.String(), { description: 'What the token grants.' }),
  expires_in: Type.Integer({
    minimum: 0,
    description: "Whole seconds the token has left on the stub's clock, rounded down.",
  }),
});
export type TokenValidation = Static<typeof TokenValidation>;

/**
 * The body of `POST {auth_url}/oauth2/token` (a form, or JSON as some SDKs send). The route
 * checks it itself, after nothing and before the client id, and refuses in OAuth's shape.
 */
export const TokenRequest = Type.Object({
  grant_type: Type.Literal('refresh_token'),
  client_id: Type.String({
    minLength: 1,
    description: "The environment's CLI or SDK client id (`GET /_stub/environments`).",
  }),
  refresh_token: Type.String({ minLength: 1 }),
});
export type TokenRequest = Static<typeof TokenRequest>;

/** What `POST {auth_url}/oauth2/token` answers for a good refresh token. */
export const TokensIssued = Type.Object({
  access_token: Type.String({ description: 'The bearer credential of the API host.' }),
  id_token: Type.String({ description: 'Not a bearer credential: the API host refuses it.' }),
  token_type: Type.Literal('Bearer'),
  expires_in: Type.Integer({ description: "Seconds: 7200 (2 hours on the stub's clock)." }),
});
export type TokensIssued = Static<typeof TokensIssued>;
