/** The control API's stub itself (`/_stub/health`, `/_stub/kept`): its health and what it keeps. */
import Type, { type Static } from 'typebox';
import { ClockView } from './clock.schema.ts';

const Count = Type.Integer({ minimum: 0 });

/** What the stub keeps at most, and what it dropped past a cap before its 7 days were up. */
export const Kept = Type.Object(
  {
    events: Type.Object({
      cap_per_account: Count,
      dropped: Type.Integer({
        minimum: 0,
        description: 'Events dropped past the cap, the oldest first, before their 7 days.',
      }),
    }),
    ended_tasks: Type.Object({
      cap: Count,
      recipients_cap: Type.Integer({
        minimum: 0,
        description: 'Recipients over the ended tasks kept: a large alert counts for many.',
      }),
      kept: Count,
      dropped: Count,
    }),
    transcript_lines: Type.Object({
      cap_per_device: Type.Integer({
        minimum: 1,
        description: "A device's share of 100,000 lines over the fixtures' devices, at most 1,000.",
      }),
      dropped: Type.Integer({
        minimum: 0,
        description: 'Lines dropped, past the cap or older than 7 days.',
      }),
    }),
    invocations: Type.Object({ cap: Count, kept: Count, dropped: Count }),
  },
  { description: 'Counted since the last reset.' },
);

export const Health = Type.Object({
  status: Type.Literal('ok'),
  clock: ClockView,
  accounts: Type.Integer(),
  devices: Type.Integer(),
});

export type Health = Static<typeof Health>;
export type StubKept = Static<typeof Kept>;
