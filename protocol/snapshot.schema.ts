/**
 * A world snapshot of the stub (`GET`/`PUT /_stub/snapshot`, `--snapshot FILE`,
 * `startStub({ snapshot })`): everything the stub keeps, as plain data, so that a stub
 * restored from it goes on exactly as the one it was taken from (docs/decisions.md, WS1–WS19).
 * Timers are closures in the stub; here they are records naming what owns them, and a
 * restore makes them again from those records.
 */
import Type, { type Static } from 'typebox';
import { CancelEvents, EnvironmentName, WorkflowInvocation } from './control-api.schema.ts';
import { AlertRequest, AnalyticEvent } from './service-api.schema.ts';
import { TaskOutcome, TaskState } from './task-outcome.schema.ts';

/** The one format this stub writes and reads; another is refused (WS2). */
export const SNAPSHOT_FORMAT = 'badge-sim-snapshot/2';
/** What stands for a secret in a snapshot taken with `?secrets=omit` (WS6). */
export const OMITTED_SECRET = '<omitted: taken with ?secrets=omit>';
/** Largest snapshot a PUT accepts, in bytes: above the 50 MB of a 100,000-event world (WS10). */
export const SNAPSHOT_BODY_LIMIT = 64 * 1024 * 1024;

const Ms = Type.Number({ minimum: 0, description: 'An instant, ms since the epoch.' });
const Uint32 = Type.Integer({ minimum: 0, maximum: 4_294_967_295 });
/** The 4 words of a seeded generator (sfc32): it continues from them, it does not restart. */
const GeneratorState = Type.Array(Uint32, { minItems: 4, maxItems: 4 });

const SnapshotTimer = Type.Union([
  Type.Object(
    {
      kind: Type.Literal('task_timeout'),
      task_id: Type.String(),
      due: Ms,
      order: Type.Integer({ minimum: 0 }),
    },
    { additionalProperties: false },
  ),
  Type.Object(
    {
      kind: Type.Literal('repeat'),
      task_id: Type.String(),
      device_id: Type.String(),
      due: Ms,
      order: Type.Integer({ minimum: 0 }),
    },
    { additionalProperties: false },
  ),
]);
export type SnapshotTimer = Static<typeof SnapshotTimer>;

/** An `enum`, not a union of literals: checked by one comparison an element, no error made per branch. */
const TaskDeviceStatus = Type.Enum(['queued', 'playing', 'acknowledged', 'stopped']);

/** A task's devices as columns (WS19), in the task's order: 100,000 devices are 4 arrays. */
const SnapshotTaskDevices = Type.Object(
  {
    device_id: Type.Array(Type.String()),
    status: Type.Array(TaskDeviceStatus),
    plays: Type.Array(Type.Integer({ minimum: 0 })),
    last_played: Type.Array(Type.Integer({ minimum: 0 })),
  },
  { additionalProperties: false },
);
export type SnapshotTaskDevices = Static<typeof SnapshotTaskDevices>;

const SnapshotTask = Type.Object(
  {
    task_id: Type.String({ minLength: 1 }),
    serial: Type.Integer({ minimum: 0 }),
    subscriber_id: Type.String(),
    request: AlertRequest,
    created_at: Ms,
    state: TaskState,
    outcome: TaskOutcome,
    ended_at: Type.Union([Ms, Type.Null()]),
    acknowledgements: Type.Integer({ minimum: 0 }),
    devices: SnapshotTaskDevices,
  },
  { additionalProperties: false },
);
export type SnapshotTask = Static<typeof SnapshotTask>;

const SnapshotCommand = Type.Object(
  {
    type: Type.Enum(['play', 'broadcast', 'stop', 'speak']),
    taskId: Type.String(),
  },
  { additionalProperties: true },
);

/**
 * An account's events as columns (WS19): each event is a kind (category and content) and a
 * task, named by their index in `kinds` and `tasks`, with its id and its instant in whole µs
 * (what its timestamp prints). A 100,000-event store is 4 arrays, not 100,000 objects.
 */
const SnapshotEventLog = Type.Object(
  {
    subscriber_id: Type.String(),
    kinds: Type.Array(
      Type.Object(
        { category: Type.String(), content: AnalyticEvent.properties.content },
        { additionalProperties: false },
      ),
    ),
    tasks: Type.Array(AnalyticEvent.properties.task),
    kind: Type.Array(Type.Integer({ minimum: 0 }), {
      description: "Each event's index in `kinds`.",
    }),
    task: Type.Array(Type.Integer({ minimum: 0 }), {
      description: "Each event's index in `tasks`.",
    }),
    event_id: Type.Array(Type.String()),
    at: Type.Array(Type.Integer({ minimum: 0 }), {
      description: "Each event's instant, whole µs since the epoch, oldest first.",
    }),
  },
  { additionalProperties: false },
);
export type SnapshotEventLog = Static<typeof SnapshotEventLog>;

/** A device's transcript as columns (WS19): each line's instant and its command's index. */
const SnapshotTranscript = Type.Object(
  {
    device_id: Type.String(),
    at: Type.Array(Ms),
    command: Type.Array(Type.Integer({ minimum: 0 }), {
      description: "Each line's index in `engine.commands`.",
    }),
  },
  { additionalProperties: false },
);

const SnapshotDevice = Type.Object(
  {
    device_id: Type.String(),
    online: Type.Boolean({
      description: 'Online when taken; a restored stub has it offline (WS8).',
    }),
    battery_level: Type.Union([Type.Number(), Type.Null()]),
    battery_status: Type.Union([Type.String(), Type.Null()]),
    location: Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()]),
    last_connect: Type.Union([Ms, Type.Null()]),
    last_disconnect: Type.Union([Ms, Type.Null()]),
  },
  { additionalProperties: false },
);
export type SnapshotDevice = Static<typeof SnapshotDevice>;

const SnapshotUser = { user_id: Type.String(), email: Type.String() };

export const SnapshotTokens = Type.Object(
  {
    generation: Type.Integer({ minimum: 0 }),
    refresh: Type.Array(
      Type.Object(
        {
          token: Type.String(),
          subscriber_id: Type.String(),
          environment: EnvironmentName,
          ...SnapshotUser,
          revoked: Type.Boolean(),
        },
        { additionalProperties: false },
      ),
    ),
    access: Type.Array(
      Type.Object(
        {
          token: Type.String(),
          kind: Type.Union([Type.Literal('access'), Type.Literal('id')]),
          subscriber_id: Type.String(),
          environment: EnvironmentName,
          ...SnapshotUser,
          client_id: Type.String(),
          expires_at: Ms,
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);
export type SnapshotTokens = Static<typeof SnapshotTokens>;

export const SnapshotFaults = Type.Object(
  {
    counter: Type.Integer({ minimum: 0 }),
    list: Type.Array(
      Type.Object(
        {
          id: Type.String(),
          request: Type.Object({}, { additionalProperties: true }),
          added_at: Ms,
          remaining: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()]),
          applied: Type.Integer({ minimum: 0 }),
          random: GeneratorState,
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);
export type SnapshotFaults = Static<typeof SnapshotFaults>;

export const WorldSnapshot = Type.Object(
  {
    format: Type.String({ description: `The format of the document: \`${SNAPSHOT_FORMAT}\`.` }),
    secrets: Type.Union([Type.Literal('included'), Type.Literal('omitted')]),
    taken_at: Type.String({ description: 'The instant it was taken, as events write one.' }),
    fixtures: Type.Object(
      { accounts: Type.Array(Type.Object({}, { additionalProperties: true })) },
      {
        additionalProperties: true,
        description:
          'The fixtures as `GET /_stub/fixtures` answers them; a restore checks them as a load does.',
      },
    ),
    settings: Type.Object(
      { cancelEvents: CancelEvents, urnWord: Type.String() },
      { additionalProperties: true },
    ),
    clock: Type.Object(
      {
        mode: Type.Union([Type.Literal('virtual'), Type.Literal('real'), Type.Literal('scaled')]),
        scale: Type.Number({ exclusiveMinimum: 0 }),
        now: Ms,
        timers: Type.Array(SnapshotTimer),
      },
      { additionalProperties: false },
    ),
    ids: Type.Object(
      { seed: Type.Union([Type.String(), Type.Null()]), state: GeneratorState },
      { additionalProperties: false },
    ),
    engine: Type.Object(
      {
        next_serial: Type.Integer({ minimum: 0 }),
        plays: Type.Integer({ minimum: 0 }),
        tasks: Type.Array(SnapshotTask),
        ended_order: Type.Array(Type.String(), { description: 'Ended tasks, as they ended.' }),
        lanes: Type.Array(
          Type.Object(
            { device_id: Type.String(), name: Type.String(), task_ids: Type.Array(Type.String()) },
            { additionalProperties: false },
          ),
        ),
        commands: Type.Array(SnapshotCommand, {
          description: 'The commands the transcripts name, each once.',
        }),
        transcripts: Type.Array(SnapshotTranscript),
      },
      { additionalProperties: false },
    ),
    events: Type.Array(SnapshotEventLog),
    tokens: SnapshotTokens,
    faults: SnapshotFaults,
    invocations: Type.Array(WorkflowInvocation),
    devices: Type.Array(SnapshotDevice),
    journal: Type.Optional(Type.Unknown({ description: 'Only with `?include=journal`.' })),
    recording: Type.Optional(Type.Unknown({ description: 'Only with `?include=recording`.' })),
    badges: Type.Optional(
      Type.Unknown({
        description:
          'The badges with the world, a fleet snapshot (`badge-sim-fleet/1`): a scenario’s `snapshot:` step writes them, `?include=badges` adds those the stub runs (`--badges`); a PUT leaves them to the fleet (WS20, WS24).',
      }),
    ),
  },
  { additionalProperties: false },
);
export type WorldSnapshot = Static<typeof WorldSnapshot>;

export const SnapshotQuery = Type.Object({
  include: Type.Optional(
    Type.String({
      pattern: '^(journal|recording|badges)(,(journal|recording|badges)){0,2}$',
      description:
        '`journal`, `recording`, `badges` (those the stub runs, `--badges`), comma-separated: kept out otherwise.',
    }),
  ),
  secrets: Type.Optional(
    Type.Union([Type.Literal('include'), Type.Literal('omit')], {
      description: '`omit`: api keys, tokens and device keys replaced by a placeholder (WS6).',
    }),
  ),
});
export type SnapshotQuery = Static<typeof SnapshotQuery>;
/** What `?include=` may add to a snapshot. */
export type SnapshotInclude = 'journal' | 'recording' | 'badges';
