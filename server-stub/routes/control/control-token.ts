/**
 * The lock of the control API: with a control token every route of it but health wants that
 * token in its own header.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { CONTROL_PREFIX, CONTROL_TOKEN_HEADER } from '../../../protocol/control-api.schema.ts';
import { HttpError } from '../../http-errors.ts';

/**
 * Refuses a request to a locked control API without the right token: 401 naming the header.
 * The hook belongs to the control plugin, so it runs for the routes that matched there,
 * however the path was written. Hashes of equal length are compared in constant time; the
 * token is never logged or repeated.
 */
export function controlTokenGuard(token: string) {
  const expected = digest(token);
  const header = CONTROL_TOKEN_HEADER.toLowerCase();
  const open = `${CONTROL_PREFIX}/health`;
  return async (request: { routeOptions: { url?: string }; headers: Record<string, unknown> }) => {
    if (request.routeOptions.url === open) return;
    const given = request.headers[header];
    if (typeof given !== 'string' || given === '') {
      throw new HttpError(
        401,
        'missing_control_token',
        `the control API of this stub is locked: send its token in the header ${CONTROL_TOKEN_HEADER} (the stub's --control-token or BADGE_SIM_CONTROL_TOKEN)`,
        header,
      );
    }
    if (!timingSafeEqual(digest(given), expected)) {
      throw new HttpError(
        401,
        'invalid_control_token',
        `the ${CONTROL_TOKEN_HEADER} header is not this stub's control token`,
        header,
      );
    }
  };
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}
