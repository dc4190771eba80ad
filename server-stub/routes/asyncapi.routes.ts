/**
 * `GET /_stub/asyncapi.json`: the device protocol as an AsyncAPI 3.0 document
 * (protocol/device-protocol.asyncapi.ts), its server the address the request reached, `wss`
 * on a stub serving TLS. Open on a locked stub, like the OpenAPI document beside it: it is the
 * same for every stub, holds no secret, and tools that read it send no custom header.
 */
import type { FastifyPluginAsync } from 'fastify';
import {
  ASYNCAPI_DEFAULT_HOST,
  deviceProtocolAsyncApi,
} from '../../protocol/device-protocol.asyncapi.ts';

/** A `Host` header worth echoing: a name or address, and a port. Anything else: the default. */
const PLAIN_HOST = /^[A-Za-z0-9.\-[\]:]{1,260}$/;

export const asyncApiRoutes: FastifyPluginAsync = async (app) => {
  app.get('/asyncapi.json', { schema: { hide: true } }, async (request) =>
    deviceProtocolAsyncApi({
      host: PLAIN_HOST.test(request.host) ? request.host : ASYNCAPI_DEFAULT_HOST,
      secure: request.protocol === 'https',
    }),
  );
};
