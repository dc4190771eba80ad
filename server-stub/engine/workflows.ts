/**
 * HTTP workflows (`POST {api_host}/ibot/workflow/{workflow_id}`) without HTTP: what an
 * invocation must hold, checked in the order the stub refuses in (decisions T-rows), and the
 * workflows of the fixtures it may invoke. `StubCore.invokeWorkflow` keeps and plays it.
 */
import type { FixtureWorkflow } from '../../fixtures/fixtures.schema.ts';
import { ownValue } from '../../input/own.ts';
import { MAX_STORED_JSON_BYTES } from '../../protocol/trigger-api.schema.ts';
import { EngineError } from './engine-error.ts';

/** An invocation's request as the client sent it: any value, checked by `readInvocation`. */
export interface InvocationRequest {
  /** The `user_id` of the query string. */
  userId: unknown;
  /** The JSON body. */
  body: unknown;
}

/** An invocation's request once checked. */
export interface CheckedInvocation {
  userId: string;
  actionArgs: object | undefined;
  targetDeviceIds: string[] | undefined;
}

/**
 * Checks what a client sent, field by field in the order the stub refuses: `user_id`, the
 * body, `action`, `action_args`, `target_device_ids`. Own fields only: a client's word never
 * finds what every object inherits.
 */
export function readInvocation({ userId, body }: InvocationRequest): CheckedInvocation {
  if (typeof userId !== 'string' || userId === '') {
    throw new EngineError('invalid_field', 'user_id is required in the query string', 'user_id');
  }
  if (!body || typeof body !== 'object' || Array.isArray(body)) {
    throw new EngineError(
      'invalid_field',
      'the body must be a JSON object such as {"action":"invoke"}',
      'body',
    );
  }
  const actionArgs = ownValue(body, 'action_args');
  if (ownValue(body, 'action') !== 'invoke')
    throw new EngineError('invalid_field', "action must be 'invoke'", 'action');
  if (
    actionArgs !== undefined &&
    (typeof actionArgs !== 'object' || actionArgs === null || Array.isArray(actionArgs))
  ) {
    throw new EngineError('invalid_field', 'action_args must be an object', 'action_args');
  }
  // Stored and shown later (GET /_stub/workflows/invocations): bounded in size; its depth is
  // bounded by the body parser.
  if (actionArgs !== undefined && jsonBytes(actionArgs) > MAX_STORED_JSON_BYTES) {
    throw new EngineError(
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
    throw new EngineError(
      'invalid_field',
      'target_device_ids must be an array of device ids',
      'target_device_ids',
    );
  }
  return {
    userId,
    actionArgs: actionArgs as object | undefined,
    targetDeviceIds: targets as string[] | undefined,
  };
}

/**
 * The workflow an invocation names, if the account has it installed, it is an HTTP workflow
 * (its id begins `wf_http_`) and it is triggered with POST.
 */
export function invocableWorkflow(
  workflows: readonly FixtureWorkflow[] | undefined,
  subscriberId: string,
  workflowId: string,
): FixtureWorkflow {
  const workflow = workflows?.find((w) => w.id === workflowId);
  if (!workflow)
    throw new EngineError(
      'unknown_workflow',
      `no workflow '${workflowId}' installed in account ${subscriberId}`,
      'workflow_id',
    );
  if (!workflow.id.startsWith('wf_http_')) {
    throw new EngineError(
      'not_an_http_workflow',
      `workflow '${workflowId}' is not an HTTP workflow (its id does not begin wf_http_)`,
      'workflow_id',
    );
  }
  if ((workflow.trigger_method ?? 'POST') !== 'POST') {
    throw new EngineError(
      'wrong_trigger_method',
      `workflow '${workflowId}' is triggered with ${workflow.trigger_method}, not POST`,
      'workflow_id',
    );
  }
  return workflow;
}

/** Bytes of a value serialised as JSON (the value has passed the body's depth check already). */
function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value) ?? '');
}
