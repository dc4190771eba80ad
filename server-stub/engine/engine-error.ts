/** What the engine refuses, by stable code; the HTTP layer maps each code to a status. */
export type EngineErrorCode =
  | 'unknown_subscriber'
  | 'unknown_group'
  | 'unknown_task'
  | 'task_ended'
  | 'unknown_device'
  | 'invalid_field'
  | 'too_large'
  | 'unknown_workflow'
  | 'not_an_http_workflow'
  | 'wrong_trigger_method'
  | 'too_many_faults';

/** A refusal of the engine: nothing was changed. `field` names the request field at fault. */
export class EngineError extends Error {
  constructor(
    readonly code: EngineErrorCode,
    message: string,
    readonly field?: string,
  ) {
    super(message);
    this.name = 'EngineError';
  }
}
