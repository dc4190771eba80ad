/** What the engine refuses, by stable code; the HTTP layer maps each code to a status. */
export type EngineErrorCode =
  | 'unknown_subscriber'
  | 'unknown_group'
  | 'unknown_task'
  | 'task_ended'
  | 'unknown_device';

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
