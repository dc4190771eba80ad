/** A scenario that cannot be used; the message says where and what. */
export class ScenarioError extends Error {
  constructor(
    message: string,
    readonly path = '',
  ) {
    super(message);
    this.name = 'ScenarioError';
  }
}
