/**
 * The control API's settings (`/_stub/settings`, `/_stub/environments`): the choices a team can
 * change, the environments and the HTTP server's timeouts.
 */
import Type, { type Static } from 'typebox';

/** The environments of the token, trigger and device interface; pro is the default. */
export const EnvironmentName = Type.Union([Type.Literal('pro'), Type.Literal('qa')]);
export type EnvironmentName = Static<typeof EnvironmentName>;
export const ENVIRONMENTS: readonly EnvironmentName[] = EnvironmentName.anyOf.map((e) => e.const);

/** Which events a cancel (DELETE) produces; the spec does not show it (docs/decisions.md). */
export const CancelEvents = Type.Union([
  Type.Literal('end-cancelled'),
  Type.Literal('end-normal'),
  Type.Literal('none'),
]);
export type CancelEvents = Static<typeof CancelEvents>;

/** One environment as `GET /_stub/environments` shows it. */
export const EnvironmentSettings = Type.Object({
  prefix: Type.String({
    description:
      "Path prefix on the stub's port: `{api_host}` and `{auth_url}` are the stub URL plus it.",
  }),
  cliClientId: Type.String(),
  sdkClientId: Type.String(),
});
export type EnvironmentSettings = Static<typeof EnvironmentSettings>;

/** `GET /_stub/environments`: every environment by name. */
export const EnvironmentsView = Type.Object({
  pro: EnvironmentSettings,
  qa: EnvironmentSettings,
});

/**
 * How long the HTTP server waits on a client, in ms (docs/decisions.md I9). A WebSocket
 * badge, once upgraded, is not subject to them.
 */
export const HttpTimeouts = Type.Object({
  headersMs: Type.Integer({ description: 'From connecting to the end of the request headers.' }),
  requestMs: Type.Integer({
    description: 'From connecting (or the start of a request) to the end of its body.',
  }),
  keepAliveMs: Type.Integer({
    description: 'How long a keep-alive connection waits for its next request.',
  }),
  stalledAnswerMs: Type.Integer({
    description:
      'How long an answer may make no progress because the client does not read it; then the connection is dropped.',
  }),
});
export type HttpTimeouts = Static<typeof HttpTimeouts>;

/**
 * Choices a team can change to match what they observe of the original service (`GET
 * /_stub/settings`). The defaults are the decisions in docs/decisions.md.
 */
export const StubSettings = Type.Object({
  authScheme: Type.String({
    description: 'Scheme word of `Authorization: <scheme> <API_KEY>` (architecture, decision 8).',
  }),
  brandWord: Type.String({ description: 'The brand word in the device path.' }),
  urnWord: Type.String({
    description: 'The word in group URNs (`urn:<word>-resource:…`); the brand word by default.',
  }),
  unknownFields: Type.Union([Type.Literal('reject'), Type.Literal('ignore')], {
    description: 'Fields the spec does not list in a body: refused with 400, or dropped.',
  }),
  cancelEvents: CancelEvents,
  bodyLimit: Type.Integer({ description: 'Largest request body accepted, in bytes (413 over).' }),
  journalLimit: Type.Integer({
    description:
      'Entries the request journal keeps (`/_stub/journal`); past it the oldest are dropped, and counted.',
  }),
  environments: EnvironmentsView,
  unknownClientIds: Type.Union([Type.Literal('refuse'), Type.Literal('accept')], {
    description:
      'A client id of no environment at a token endpoint: refused (401 `invalid_client`) or accepted.',
  }),
  badgeAnswerTimeoutMs: Type.Number({
    description: "Real time a virtual clock waits for one badge's `handled`.",
  }),
  badgeMaxQueuedBytes: Type.Number({
    description: 'Bytes queued for a badge that does not read; past it the stub closes (4008).',
  }),
  badgeMaxBadFramesPerSecond: Type.Number({
    description: "Error frames answered to one connection's bad frames a second; past it, 4009.",
  }),
  httpTimeouts: HttpTimeouts,
});
export type StubSettings = Static<typeof StubSettings>;
