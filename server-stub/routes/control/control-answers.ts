/**
 * What several capabilities of the control API answer alike: their OpenAPI tag, the error
 * statuses a route that reads the request documents, and the health answer (health, reset and
 * a fixtures load all give it).
 */
import type { Health } from '../../../protocol/control-api.schema.ts';
import { ErrorBody } from '../../../protocol/service-api.schema.ts';
import { clockView } from '../../clock-view.ts';
import type { StubCore } from '../../stub-core.ts';

export const tags = ['control'];
export const errors = { 400: ErrorBody, 404: ErrorBody };

/** Liveness: the clock and how many accounts and devices the fixtures hold. */
export function healthOf(core: StubCore): Health {
  return {
    status: 'ok' as const,
    clock: clockView(core.clock),
    accounts: core.directory.subscribers().length,
    devices: core.directory.devices().length,
  };
}
