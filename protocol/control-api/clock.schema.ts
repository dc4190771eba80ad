/**
 * The control API's clock (`/_stub/clock`): what it shows, an advance and its answer, a mode
 * change.
 */
import Type, { type Static } from 'typebox';
import { ClockModeSchema } from '../clock.schema.ts';
import { MAX_DURATION_MS, MAX_DURATION_TEXT } from '../duration.ts';

export const ClockView = Type.Object({
  mode: ClockModeSchema,
  scale: Type.Number(),
  now: Type.String({ description: 'ISO 8601 with microseconds.' }),
  now_ms: Type.Number(),
  pending_timers: Type.Integer(),
  next_due_at: Type.Union([Type.String(), Type.Null()]),
});
export type ClockView = Static<typeof ClockView>;

export const ClockAdvance = Type.Object(
  {
    by: Type.Optional(
      Type.Union(
        [
          Type.String({ minLength: 1, maxLength: MAX_DURATION_TEXT }),
          Type.Number({ minimum: 0, maximum: MAX_DURATION_MS }),
        ],
        {
          description:
            "A duration: '30s', '5m', '2h', '7d', '1500ms', or milliseconds as a number; whole milliseconds, at most 3650 days.",
        },
      ),
    ),
    to: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 64,
        description: 'An ISO 8601 instant ahead of now, at most 9999-12-31T23:59:59.999Z.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type ClockAdvance = Static<typeof ClockAdvance>;

/** A badge that held the clock past the bound during an advance: the clock went on without it. */
export const ClockHeldBy = Type.Object({
  device_id: Type.String(),
  user: Type.String(),
  waited_ms: Type.Integer({ description: 'Real time the clock waited for it.' }),
  message: Type.String({
    description:
      "e.g. 'badge 2001 (Ada Mensah) did not answer within 2 s: the clock went on without it'",
  }),
});
export type ClockHeldBy = Static<typeof ClockHeldBy>;

export const ClockAdvanced = Type.Object({
  fired: Type.Integer(),
  clock: ClockView,
  held_by: Type.Array(ClockHeldBy, {
    description:
      'Badges counted unresponsive during this advance (they did not answer within the bound); empty when every badge did.',
  }),
  unresponsive: Type.Array(Type.String(), {
    description:
      'Device ids of every connected badge counted unresponsive when the advance ends: those of held_by and those still unresponsive from before (GET /_stub/devices shows responsive: false).',
  }),
});

/** Bounds of a scaled clock's speed (docs/decisions.md I-rows). */
export const CLOCK_SCALE_MIN = 0.001;
export const CLOCK_SCALE_MAX = 1_000_000;

export const ClockModeChange = Type.Object(
  {
    mode: ClockModeSchema,
    scale: Type.Optional(
      Type.Number({
        minimum: CLOCK_SCALE_MIN,
        maximum: CLOCK_SCALE_MAX,
        description: `For scaled mode: ${CLOCK_SCALE_MIN} to ${CLOCK_SCALE_MAX} times as fast as real time.`,
      }),
    ),
  },
  { additionalProperties: false },
);

export type ClockAdvanced = Static<typeof ClockAdvanced>;
