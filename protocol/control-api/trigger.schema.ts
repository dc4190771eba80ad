/**
 * The control API's side of the trigger interface (`/_stub/workflows/invocations`,
 * `/_stub/tokens`): the workflows invoked, refresh tokens issued and revoked.
 */
import Type, { type Static } from 'typebox';
import { TokenUserEmail, TokenUserId } from '../token-api.schema.ts';
import { EnvironmentName } from './settings.schema.ts';

/** One invocation of an HTTP workflow, as `GET /_stub/workflows/invocations` shows it. */
export const WorkflowInvocation = Type.Object({
  invocation_id: Type.String(),
  environment: EnvironmentName,
  workflow_id: Type.String(),
  subscriber_id: Type.String(),
  user_id: Type.String(),
  action: Type.String(),
  action_args: Type.Optional(Type.Unknown()),
  target_device_ids: Type.Optional(Type.Array(Type.String())),
  at: Type.String(),
});
export type WorkflowInvocation = Static<typeof WorkflowInvocation>;

/** `POST /_stub/tokens/refresh`: a refresh token for a user of an account in an environment. */
export const RefreshTokenRequest = Type.Object(
  {
    subscriber_id: Type.String({ minLength: 1 }),
    environment: Type.Optional(EnvironmentName),
    user_id: Type.Optional(TokenUserId),
    email: Type.Optional(TokenUserEmail),
  },
  { additionalProperties: false },
);
export type RefreshTokenRequest = Static<typeof RefreshTokenRequest>;
export const RefreshTokenIssued = Type.Object({ refresh_token: Type.String() });
export type RefreshTokenIssued = Static<typeof RefreshTokenIssued>;

/** `POST /_stub/tokens/revoke`: the token in the body (a secret does not go in a URL). */
export const RevokeRequest = Type.Object(
  { refresh_token: Type.String({ minLength: 1 }) },
  { additionalProperties: false },
);
export const Revoked = Type.Object({ revoked: Type.Boolean() });
export type Revoked = Static<typeof Revoked>;
