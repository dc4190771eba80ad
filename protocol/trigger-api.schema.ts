/**
 * Shapes of the workflow-trigger and device-info interface of the API host
 * (`{api_host}/ibot/workflow/{workflow_id}`, `{api_host}/<brand>/api/v1/device/{device_id}`):
 * its path parameters, query strings, bodies and answers. The routes check the query strings
 * and bodies themselves, after the credentials, so that a request is refused for its
 * credentials first (docs/decisions.md, T-rows).
 */
import Type, { type Static } from 'typebox';

/** The largest free-form JSON value the stub stores (`action_args`), serialised, in bytes (I6). */
export const MAX_STORED_JSON_BYTES = 64 * 1024;

export const WorkflowParams = Type.Object({
  workflow_id: Type.String({ description: 'An HTTP workflow of the account (`wf_http_…`).' }),
});
export type WorkflowParams = Static<typeof WorkflowParams>;

export const DeviceParams = Type.Object({
  device_id: Type.String({ description: 'A device of the account.' }),
});
export type DeviceParams = Static<typeof DeviceParams>;

const SubscriberId = Type.String({
  minLength: 1,
  description: 'The account; the access token must grant it.',
});

export const DeviceQuery = Type.Object({ subscriber_id: SubscriberId });

export const WorkflowQuery = Type.Object({
  subscriber_id: SubscriberId,
  user_id: Type.String({ minLength: 1, description: 'The device of the user who invokes it.' }),
});

export const WorkflowInvocationRequest = Type.Object({
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
});
export type WorkflowInvocationRequest = Static<typeof WorkflowInvocationRequest>;

/** What an invocation answers: the id it is kept under (`GET /_stub/workflows/invocations`). */
export const WorkflowInvoked = Type.Object({
  status: Type.Literal('invoked'),
  invocation_id: Type.String(),
});
export type WorkflowInvoked = Static<typeof WorkflowInvoked>;
