/**
 * The fields the parts of a scenario share: durations as written, devices by id or user name,
 * the trigger interface's environments.
 */
import Type from 'typebox';
import { DURATION_PATTERN } from '../../fixtures/fixtures.schema.ts';
import { EnvironmentName } from '../../protocol/control-api.schema.ts';
import { MAX_DURATION_TEXT } from '../../protocol/duration.ts';

/** A duration as a scenario writes it (`1.5s`, `2m`), described for its place. */
export const Duration = (description: string) =>
  Type.String({ maxLength: MAX_DURATION_TEXT, pattern: DURATION_PATTERN, description });
/** A device by id (`350000000000002`) or by its user's name (`Ben Okafor`). */
export const DeviceRef = Type.String({
  minLength: 1,
  description: "A device id or its user's name.",
});

/** The environment of a trigger-interface step or expectation. */
export const Environment = Type.Union(EnvironmentName.anyOf, {
  description: 'The environment whose hosts and client ids the step uses (default pro).',
});
