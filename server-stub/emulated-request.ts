/**
 * What the request journal and the fault table both ask of a request: is it one to the
 * emulated APIs (anything outside the control API), what path did the client send, and
 * which accounts does it concern.
 */
import type { FastifyRequest } from 'fastify';
import { CONTROL_PREFIX } from '../protocol/control-api.schema.ts';
import type { StubCore } from './stub-core.ts';

/**
 * The path as the client sent it, without the query string, when the request is to the
 * emulated APIs; undefined for the control API (however its path was spelled, RJ1, HF2).
 */
export function emulatedPath(request: FastifyRequest): string | undefined {
  const url = request.raw.url ?? '/';
  const end = url.search(/[?#]/);
  const path = end < 0 ? url : url.slice(0, end);
  const control =
    request.routeOptions.url?.startsWith(`${CONTROL_PREFIX}/`) === true ||
    path === CONTROL_PREFIX ||
    path.startsWith(`${CONTROL_PREFIX}/`);
  return control ? undefined : path;
}

/**
 * The accounts a request concerns, the most specific first (RJ7, HF8): the subscriber its
 * path names, every `subscriber_id` of its query, the owner of its API key or bearer token,
 * the owner of a refresh token in its body (once the body is read).
 */
export function accountsOf(core: StubCore, request: FastifyRequest, path: string): string[] {
  const accounts: string[] = [];
  const inPath = accountInPath(path);
  if (inPath !== undefined) accounts.push(inPath);
  const url = request.raw.url ?? '';
  const query = url.indexOf('?');
  if (query >= 0) {
    const search = new URLSearchParams(url.slice(query + 1).split('#', 1)[0]);
    accounts.push(...search.getAll('subscriber_id').filter((id) => id !== ''));
  }
  const header = request.headers.authorization?.trim() ?? '';
  const space = header.indexOf(' ');
  if (space > 0) {
    const scheme = header.slice(0, space).toLowerCase();
    const credential = header.slice(space + 1).trim();
    const owner =
      scheme === core.settings.authScheme.toLowerCase()
        ? core.directory.subscriberForKey(credential)
        : scheme === 'bearer'
          ? core.tokens.ownerOf(credential)
          : undefined;
    if (owner !== undefined) accounts.push(owner);
  }
  const body = request.body;
  if (body !== null && typeof body === 'object' && Object.hasOwn(body, 'refresh_token')) {
    const token = (body as { refresh_token?: unknown }).refresh_token;
    const owner = typeof token === 'string' ? core.tokens.ownerOf(token) : undefined;
    if (owner !== undefined) accounts.push(owner);
  }
  return accounts;
}

/** The most specific account a request concerns (RJ7): `accountsOf`'s first, read no further. */
export function accountOf(core: StubCore, request: FastifyRequest, path: string): string | null {
  return accountInPath(path) ?? accountsOf(core, request, path)[0] ?? null;
}

function accountInPath(path: string): string | undefined {
  if (!path.startsWith('/subscribers/')) return undefined;
  const end = path.indexOf('/', '/subscribers/'.length);
  const segment = path.slice('/subscribers/'.length, end < 0 ? undefined : end);
  if (segment === '') return undefined;
  return segment.includes('%') ? decoded(segment) : segment;
}

function decoded(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
