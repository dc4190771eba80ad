/**
 * What the OpenAPI document says a route can answer. Every status a route can give is listed
 * for its operation with the body it carries (docs/decisions.md O1): what any route can answer
 * is added here by one `onRoute` hook (`commonAnswers`); what a whole interface answers (its
 * credentials) by a hook of that interface's plugin (`documentRoutes`); what one route answers
 * in its own schema. So a route added later is documented with the rest as far as it can be.
 *
 * The schemas only document: error bodies are written as they are, never through a response
 * schema (app.ts), so a schema that forgot a property could not strip it (O4).
 */
import type { FastifyInstance, RouteOptions } from 'fastify';
import { ErrorBody, OAuthErrorBody } from '../protocol/service-api.schema.ts';

type Schema = Record<string, unknown>;
/** Status code → the schema of its body, with a `description` of when it is given. */
export type Answers = Record<number, Schema>;

/** A response: `body` described as `description`. */
export function answer(description: string, body: object = ErrorBody): Schema {
  return { ...(body as Schema), description };
}

/** OAuth 2.0 error bodies (RFC 6749 §5.2), the shape token clients read. */
export const oauthAnswer = (description: string) => answer(description, OAuthErrorBody);

/**
 * Marks a request schema (query, headers, body) as documentation only: the handler checks
 * these itself, in the order of refusals it is decided on (credentials before fields), and
 * answers in its own shape (OAuth on the token endpoint), so fastify does not validate it.
 */
const CHECKED_BY_HANDLER = 'x-checked-by-handler';
export function checkedByHandler<T extends object>(schema: T): T {
  return { ...schema, [CHECKED_BY_HANDLER]: true };
}
export const isCheckedByHandler = (schema: object): boolean =>
  (schema as Schema)[CHECKED_BY_HANDLER] === true;

/**
 * What every route can answer, whatever it does: a request Node's parser or fastify refuses
 * before the handler runs. Routes with path parameters can also miss (404) or have a
 * parameter over fastify's 100 characters (414); routes whose method carries a body can get
 * one that is too large (413), not JSON (415) or malformed (400).
 */
export function commonAnswers(route: RouteOptions): Answers {
  const answers: Answers = {
    400: answer(
      'Refused: a field, parameter or header that is not valid, named by `field` (also a request that is not valid HTTP, or with an `Upgrade` header).',
    ),
    408: answer(
      'The request did not arrive in time (headers within 10 s of connecting, all of it within 30 s by default).',
    ),
    431: answer('The request line and headers are larger than 16 KiB (a URL too long).'),
  };
  if (route.url.includes(':')) {
    answers[404] = answer('What a path parameter names does not exist (or is empty).');
    answers[414] = answer('A path parameter is longer than 100 characters.');
  }
  const methods = [route.method].flat();
  if (methods.some((method) => method !== 'GET' && method !== 'HEAD')) {
    answers[400] = answer(
      `${answers[400]!.description} A body that is not JSON, nests deeper than 32, or has a \`__proto__\` key.`,
    );
    answers[413] = answer('The body is larger than the body limit (`GET /_stub/settings`).');
    answers[415] = answer('The body is not `application/json`.');
  }
  return answers;
}

/**
 * Adds answers to a route's schema. A status the route lists already keeps its body, and a
 * different body becomes one of the bodies of that status (`anyOf`); descriptions are joined.
 * Without any 2xx the route's success is documented as any JSON (`Default Response`), as
 * @fastify/swagger does for a route with no response schema: no 2xx schema is made up (it
 * would decide what is serialised).
 */
function addAnswers(route: RouteOptions, answers: Answers): void {
  route.schema ??= {};
  const schema = route.schema as Schema;
  const response = { ...((schema.response as Record<string, Schema> | undefined) ?? {}) };
  for (const [status, added] of Object.entries(answers)) {
    response[status] = merged(response[status], added);
  }
  const statuses = Object.keys(response);
  if (statuses.length > 0 && !statuses.some((status) => status.startsWith('2'))) {
    response[200] = { description: 'Default Response' };
  }
  schema.response = response;
}

/** Idempotent: fastify runs the hooks again for the HEAD route of a GET, on the same schema. */
function merged(existing: Schema | undefined, added: Schema): Schema {
  if (!existing) return added;
  const said = typeof existing.description === 'string' ? existing.description : '';
  const adds = typeof added.description === 'string' ? added.description : '';
  const description = said.includes(adds) ? said : said === '' ? adds : `${said} ${adds}`;
  const bodies = (schema: Schema): Schema[] =>
    Array.isArray(schema.anyOf) ? (schema.anyOf as Schema[]) : [withoutDescription(schema)];
  const all = bodies(existing);
  for (const body of bodies(added)) {
    if (!all.some((known) => JSON.stringify(known) === JSON.stringify(body))) all.push(body);
  }
  return all.length === 1 ? { ...all[0], description } : { anyOf: all, description };
}

function withoutDescription({ description: _, ...schema }: Schema): Schema {
  return schema;
}

/** What an interface says of each of its routes (`documentRoutes`). */
export interface RouteDocs {
  answers?: Answers;
  /** OpenAPI security requirements of the operation. */
  security?: Record<string, string[]>[];
  /** Headers the interface wants, by name (required). */
  headers?: Record<string, object>;
}

/**
 * Documents every route this plugin (and the plugins it registers) defines from now on with
 * what `describe(route)` says of it: added answers, security, required headers.
 */
export function documentRoutes(
  app: FastifyInstance,
  describe: (route: RouteOptions) => RouteDocs | undefined,
): void {
  app.addHook('onRoute', (route) => {
    const docs = describe(route);
    if (!docs) return;
    if (docs.answers) addAnswers(route, docs.answers);
    route.schema ??= {};
    const schema = route.schema as Schema;
    if (docs.security) schema.security = docs.security;
    if (docs.headers) {
      const headers = (schema.headers ?? { type: 'object', properties: {} }) as Schema;
      const names = Object.keys(docs.headers);
      // Validated as well: a hook of the interface has refused a missing header already.
      schema.headers = {
        ...headers,
        properties: { ...(headers.properties as Schema), ...docs.headers },
        required: [...new Set([...((headers.required as string[]) ?? []), ...names])],
      };
    }
  });
}
