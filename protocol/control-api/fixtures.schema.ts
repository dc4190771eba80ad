/** The control API's fixtures (`/_stub/fixtures`): a generated set's request. */
import Type, { type Static } from 'typebox';

/** At most this many devices are generated in all (accounts × devicesPerAccount). */
export const GENERATE_MAX_DEVICES = 100_000;

export const GenerateRequest = Type.Object(
  {
    seed: Type.Integer({ minimum: -(2 ** 31), maximum: 2 ** 32 - 1 }),
    accounts: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
    groupsPerAccount: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
    devicesPerAccount: Type.Optional(Type.Integer({ minimum: 0, maximum: 100_000 })),
  },
  { additionalProperties: false },
);

export type GenerateRequest = Static<typeof GenerateRequest>;
