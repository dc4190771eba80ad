/**
 * The JSON Schema of a fleet's snapshot (`fleet.snapshot()`, `startFleet({ snapshot })`):
 * what a restore checks before it starts anything, so a file of another format, cut short or
 * edited by hand is refused with the field at fault (docs/decisions.md FS8).
 */
import Type from 'typebox';
import { TAP_RULES } from '../../fixtures/fixtures.schema.ts';
import { BatteryStatus, Location } from '../../protocol/device-frames.schema.ts';

/** The format a snapshot names: another version is refused, not guessed at (FS8). */
export const FLEET_SNAPSHOT_FORMAT = 'badge-sim-fleet/1';

const Strict = { additionalProperties: false } as const;
/**
 * One of a few words, as an `enum`: a union of literals makes an error for each branch an
 * element fails before the one it matches, and a fleet has a hundred thousand such elements.
 */
const OneOf = <const T extends string>(words: readonly T[]) => Type.Enum([...words]);
const Instant = Type.Number({ minimum: 0 });
const Count = Type.Integer({ minimum: 0 });
const Words = Type.Array(Type.Integer({ minimum: 0, maximum: 4_294_967_295 }), {
  minItems: 4,
  maxItems: 4,
});
const Timer = { due: Instant, seq: Count };

const Clip = Type.Object(
  {
    kind: OneOf(['alert', 'broadcast', 'speech']),
    taskId: Type.String(),
    text: Type.String(),
    durationMs: Type.Number({ minimum: 0 }),
    repeat: Type.Optional(Count),
    cause: Type.Optional(Type.String()),
    cut: Type.Optional(Type.Literal(true)),
  },
  Strict,
);

const InnerState = OneOf(['idle', 'awaiting-ack', 'playing', 'speaking', 'broadcasting', 'route']);

const Machine = Type.Object(
  {
    value: Type.Union([
      Type.Literal('offline'),
      Type.Literal('connecting'),
      Type.Object({ online: InnerState }, Strict),
    ]),
    context: Type.Object(
      {
        deviceId: Type.String(),
        user: Type.Union([Type.String(), Type.Null()]),
        open: Type.Array(
          Type.Object({ taskId: Type.String(), name: Type.String(), text: Type.String() }, Strict),
        ),
        heard: Type.Array(Type.String()),
        firstHeard: Type.Array(Type.String()),
        tapRule: OneOf(TAP_RULES),
        queue: Type.Array(Clip),
        current: Type.Union([Clip, Type.Null()]),
        batteryLevel: Type.Number({ minimum: 0, maximum: 100 }),
        batteryStatus: BatteryStatus,
        location: Type.Union([Location, Type.Null()]),
      },
      Strict,
    ),
  },
  Strict,
);

const Act = Type.Union([
  Type.Object({ do: Type.Literal('ackTap'), taskId: Type.String() }, Strict),
  Type.Object({ do: Type.Literal('offline'), index: Count }, Strict),
  Type.Object({ do: Type.Literal('vanish'), index: Count }, Strict),
  ...['comeBack', 'flakyOff', 'flakyBack', 'dropOff', 'dropBack', 'batteryStep'].map((name) =>
    Type.Object({ do: Type.Literal(name) }, Strict),
  ),
]);

const SavedBadge = Type.Object(
  {
    deviceId: Type.String({ minLength: 1 }),
    machine: Machine,
    clip: Type.Union([
      Type.Object({ ...Timer, elapsedMs: Type.Number({ minimum: 0 }) }, Strict),
      Type.Null(),
    ]),
    // Columns, not an array an entry: a thousand badges' transcripts parse and check faster.
    heard: Type.Object(
      { at: Type.Array(Instant), clip: Type.Array(Count), dropped: Count },
      Strict,
    ),
    activity: Type.Object(
      {
        at: Type.Array(Instant),
        kind: Type.Array(OneOf(['tap', 'offline', 'online'])),
        dropped: Count,
      },
      Strict,
    ),
    errors: Type.Object(
      {
        entries: Type.Array(Type.Object({ code: Type.String(), message: Type.String() }, Strict)),
        dropped: Count,
      },
      Strict,
    ),
    taps: Type.Object(
      {
        made: Count,
        sent: Count,
        lost: Count,
        delayed: Count,
        duplicated: Count,
        control: Count,
      },
      Strict,
    ),
    tappedFor: Type.Array(Type.String()),
    buttons: Type.Array(
      Type.Object({ ...Timer, taskId: Type.Union([Type.String(), Type.Null()]) }, Strict),
    ),
    dropBack: Type.Union([Type.Object(Timer, Strict), Type.Null()]),
    link: Type.Object(
      {
        wantOnline: Type.Boolean(),
        offlineOnPurpose: Type.Boolean(),
        gaveUpOn: Type.Union([Type.Integer(), Type.Null()]),
        reconnects: Count,
        claimedTries: Count,
        user: Type.Union([Type.String(), Type.Null()]),
      },
      Strict,
    ),
    // Checked as strictly as a fixture's behaviour by the restore (checkBehaviour).
    behaviour: Type.Union([Type.Object({}), Type.Null()]),
    behaviourState: Type.Union([
      Type.Object(
        {
          timers: Type.Array(Type.Object({ ...Timer, act: Act }, Strict)),
          acked: Type.Array(Type.String()),
          plays: Count,
          dropping: Type.Boolean(),
          batteryLevel: Type.Number({ minimum: 0, maximum: 100 }),
        },
        Strict,
      ),
      Type.Null(),
    ]),
    random: Type.Object({ behaviour: Words, faults: Words, reconnect: Words }, Strict),
  },
  Strict,
);

export const FleetSnapshotSchema = Type.Object(
  {
    format: Type.Literal(FLEET_SNAPSHOT_FORMAT),
    at: Instant,
    seed: Type.Number(),
    clips: Type.Array(Clip),
    badges: Type.Array(SavedBadge),
  },
  Strict,
);
