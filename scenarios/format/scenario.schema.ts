/**
 * The scenario model, declared once: it validates `*.scenario.yaml` files, types
 * `defineScenario(...)`, and is published as JSON Schema (`scenarios/scenario.schema.json`)
 * so editors complete and check scenario files.
 */
import Type, { type Static } from 'typebox';
import { FixtureBehaviour, Fixtures } from '../../fixtures/fixtures.schema.ts';
import { CancelEvents } from '../../protocol/control-api.schema.ts';
import { DeviceRef, Duration } from './common-fields.schema.ts';
import { Expectations } from './expectations.schema.ts';
import { Step } from './step.schema.ts';

// What the package's types and tests name from here; each part is declared in its own module.
export type { EventMatcher, Expectations } from './expectations.schema.ts';
export type { Step } from './step.schema.ts';

/**
 * The stub settings that change what the engine answers or accepts, which a scenario may need (decision
 * Y4): the embedded stub starts with them; an external stub must already run with them.
 */
export const ScenarioSettings = Type.Object(
  {
    cancel_events: Type.Optional(
      Type.Union([...CancelEvents.anyOf], {
        description:
          'The events of a cancel (DELETE): end-cancelled (default), end-normal, or none (the stub’s --cancel-events).',
      }),
    ),
    unknown_fields: Type.Optional(
      Type.Union([Type.Literal('reject'), Type.Literal('ignore')], {
        description:
          'Fields the spec does not list in a body: reject (default, 400) or ignore (the stub’s --unknown-fields).',
      }),
    ),
    urn_word: Type.Optional(
      Type.String({
        pattern: '^[A-Za-z0-9_-]+$',
        maxLength: 64,
        description:
          'The word of group URNs, urn:<word>-resource:… (default service; the stub’s --urn-word).',
      }),
    ),
  },
  {
    additionalProperties: false,
    description: 'Stub settings this scenario needs (default: the stub’s defaults).',
  },
);
export type ScenarioSettings = Static<typeof ScenarioSettings>;

export const Scenario = Type.Object(
  {
    $schema: Type.Optional(Type.String()),
    name: Type.String({ minLength: 1 }),
    proves: Type.String({ minLength: 1, description: 'One line: what this scenario proves.' }),
    tags: Type.Optional(Type.Array(Type.String())),
    decisions: Type.Optional(
      Type.Array(Type.String({ pattern: '^[A-Z]+[0-9]+[a-z]?$' }), {
        maxItems: 100,
        uniqueItems: true,
        description:
          'Ids of the rows of docs/decisions.md this scenario exercises (`L1`, `D3`): `run --coverage` reports the rows no scenario touched. An id that is no row is refused.',
      }),
    ),
    real_time: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 500,
        description:
          'Why this scenario waits real time in its own process: only when that wait is what it proves (a transport bound). Every other scenario runs on the virtual clock without one (decision SP3); bench:scenarios times the ones that say so apart from the rest.',
      }),
    ),
    seed: Type.Optional(Type.Integer({ description: 'Default: the runner’s --seed (0).' })),
    settings: Type.Optional(ScenarioSettings),
    from: Type.Optional(
      Type.String({
        minLength: 1,
        description:
          'Start from a world snapshot file (a `snapshot:` step’s, or GET /_stub/snapshot’s), relative to this scenario file: the stub restored from it, its badges carried on, the timeline’s `at` counted from its instant; its fixtures are the scenario’s (decisions WS21–WS23).',
      }),
    ),
    fixtures: Type.Optional(
      Type.Union([
        Type.Literal('default'),
        Fixtures,
        Type.Object(
          {
            file: Type.String({
              minLength: 1,
              description:
                'A fixtures file (YAML or JSON, as `badge-sim stub --fixtures` reads), relative to this scenario file: read each time the scenario is loaded (decision Y7).',
            }),
          },
          { additionalProperties: false },
        ),
        Type.Object(
          {
            generate: Type.Object(
              {
                seed: Type.Integer(),
                accounts: Type.Optional(Type.Integer({ minimum: 1 })),
                groupsPerAccount: Type.Optional(Type.Integer({ minimum: 1 })),
                devicesPerAccount: Type.Optional(Type.Integer({ minimum: 0 })),
              },
              { additionalProperties: false },
            ),
          },
          { additionalProperties: false },
        ),
      ]),
    ),
    account: Type.Optional(
      Type.String({ description: 'Subscriber id the API steps use (default: the first account).' }),
    ),
    badges: Type.Optional(
      Type.Union(
        [
          Type.Literal('none'),
          Type.Object(
            {
              group: Type.Optional(Type.String()),
              devices: Type.Optional(Type.Array(DeviceRef)),
            },
            { additionalProperties: false },
          ),
        ],
        {
          description: 'Which devices run a virtual badge (default: every device of the account).',
        },
      ),
    ),
    behaviours: Type.Optional(
      Type.Record(Type.String(), FixtureBehaviour, {
        description: 'Behaviour by device id, user name, or `*` for every badge without one.',
      }),
    ),
    timeline: Type.Array(Step),
    duration: Type.Optional(Duration('Run the clock to this point (default: the last step).')),
    expect: Expectations,
  },
  { additionalProperties: false },
);
export type Scenario = Static<typeof Scenario>;
