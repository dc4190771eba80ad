/**
 * A path of the model as an ordinary scenario: its inputs become the timeline, and the model's
 * prediction (through badges) becomes the expectations, `only: true` and exact to the ms, so
 * the stub and the badges must do exactly what the model says.
 */
import { Document, isMap, isSeq } from 'yaml';
import type { Fixtures } from '../../fixtures/fixtures.schema.ts';
import { predict } from '../../model/alert.model.ts';
import { badgeConfig } from '../../model/configs.ts';
import type { AlertTexts, ModelConfig, ModelInput } from '../../model/lifecycle-state.ts';
import { GENERATED_TIMEOUT_S, type ModelPath } from '../../model/paths.ts';
import type { HeardMatcher } from './expectations.schema.ts';
import type { Scenario } from './scenario.schema.ts';
import type { Step } from './step.schema.ts';

/** The users of the generated fixtures, in the group's order. */
export const GENERATED_USERS = [
  'Ada Mensah',
  'Ben Okafor',
  'Cleo Park',
  'Dev Rao',
  'Eli Novak',
  'Fay Lund',
] as const;
export const GENERATED_GROUP = 'Team';
export const GENERATED_TEXTS: AlertTexts = {
  notification: (task) => `Alert ${task}`,
  onAck: 'Thanks',
  onQuorum: 'Covered',
  onTimeout: 'Nobody came',
};

/** The configuration the generated scenarios are predicted with: taps through badges. */
export function generatedConfig(devices: number): ModelConfig {
  return badgeConfig(GENERATED_USERS.slice(0, devices), GENERATED_TEXTS);
}

/** One account, one group of `devices` badges. */
export function generatedFixtures(devices: number): Fixtures {
  const ids = GENERATED_USERS.slice(0, devices).map((_, i) => `37000000000000${i + 1}`);
  return {
    accounts: [
      {
        subscriber_id: '300001',
        name: 'Model Ward',
        api_keys: ['generated-key-300001'],
        groups: [{ id: '8001', name: GENERATED_GROUP, members: ids }],
        devices: ids.map((id, i) => ({ id, user: GENERATED_USERS[i]! })),
      },
    ],
  };
}

/** `30s`, or `755ms` when not a whole second. */
function at(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`;
}

/** The scenario of one path of `badge-sim generate`. */
export function scenarioOf(path: ModelPath, devices: number, index: number): Scenario {
  const quorum = path.quorum === 'default' ? 'the default quorum' : `quorum ${path.quorum}`;
  return scheduleScenario(path.inputs, {
    devices,
    endAt: path.endAt,
    name: `Model path ${index + 1}: ${path.family}, ${devices} devices, ${quorum.replace('the ', '')}`,
    lead: `${devices} badges, ${quorum}`,
    tags: ['generated', `family:${path.family}`],
    boundaries: path.family === 'repeat' || path.family === 'timeout',
  });
}

export interface ScheduleScenarioOptions {
  devices: number;
  /** When the clock is run to (`duration`). */
  endAt: number;
  name: string;
  /** The start of the `proves` line; the inputs in words and the prediction follow. */
  lead: string;
  tags: string[];
  /** Say which taps fall just before, at or after the repeat and the timeout. */
  boundaries?: boolean;
}

/**
 * Any schedule of inputs (in time order, to the generated group) as a scenario whose
 * expectations are the model's prediction through badges.
 */
export function scheduleScenario(
  inputs: readonly ModelInput[],
  options: ScheduleScenarioOptions,
): Scenario {
  const { devices } = options;
  const config = generatedConfig(devices);
  const p = predict(config, inputs, options.endAt);
  const users = config.users;
  let deletes = 0;
  const timeline: Step[] = inputs.flatMap((input): Step[] => {
    switch (input.type) {
      case 'POST':
        return [
          {
            at: at(input.at),
            alert: {
              notification: config.texts.notification(input.task),
              groups: [GENERATED_GROUP],
              ...(input.name === undefined ? {} : { name: input.name }),
              ...(input.quorum === undefined ? {} : { quorum: input.quorum }),
              ...(input.timeout === undefined ? {} : { timeout: input.timeout }),
              on_ack: GENERATED_TEXTS.onAck,
              on_quorum: GENERATED_TEXTS.onQuorum,
              on_timeout: GENERATED_TEXTS.onTimeout,
            },
            as: input.task,
            expect: { status: 200 },
          },
        ];
      case 'TAP':
        return [{ at: at(input.at), tap: users[input.device]! }];
      case 'DELETE':
        return [
          {
            at: at(input.at),
            cancel: input.task,
            expect: { status: p.deletes[deletes++]!.status },
          },
        ];
      case 'DROP':
        return [{ at: at(input.at), offline: users[input.device]! }];
      case 'RETURN':
        return [{ at: at(input.at), online: users[input.device]! }];
      default: // ADVANCE: the run to the end (`duration`).
        return [];
    }
  });
  return {
    name: options.name,
    proves: `${options.lead}: ${inputWords(inputs, users, options.boundaries ?? false)}; the model predicts ${outcomeWords(p)}, and what each badge hears.`,
    tags: options.tags,
    fixtures: generatedFixtures(devices),
    badges: { group: GENERATED_GROUP },
    timeline,
    duration: at(options.endAt),
    expect: {
      events: {
        only: true,
        items: p.events.map((e) => ({
          type: e.type,
          task: e.task,
          ...(e.device === undefined ? {} : { device: e.device }),
          ...(e.status === undefined ? {} : { status: e.status }),
          at: at(e.at),
        })),
      },
      heard: Object.fromEntries(
        users.map((user, d) => [
          user,
          {
            exactly: p.heard[d]!.map(
              (h): HeardMatcher => ({ kind: h.kind, text: h.text, task: h.task, at: at(h.at) }),
            ),
          },
        ]),
      ),
      states: Object.fromEntries(users.map((user, d) => [user, p.states[d]!])),
      tasks: Object.fromEntries(
        p.tasks.map((t) => [
          t.key,
          {
            state: t.endedAt === null ? ('alerting' as const) : ('ended' as const),
            outcome: (t.outcome ?? null) as 'quorum' | 'timed_out' | 'cancelled' | null,
            acknowledgements: t.acks,
          },
        ]),
      ),
    },
  };
}

const BOUNDARIES: [number, string][] = [
  [29_000, 'just before the repeat'],
  [30_000, 'at the repeat'],
  [31_000, 'just after the repeat'],
  [GENERATED_TIMEOUT_S * 1000 - 1000, 'just before the timeout'],
  [GENERATED_TIMEOUT_S * 1000, 'at the timeout'],
  [GENERATED_TIMEOUT_S * 1000 + 1000, 'just after the timeout'],
];

const sec = (ms: number) => `${ms / 1000} s`;

/** The inputs in words. */
function inputWords(
  inputs: readonly ModelInput[],
  users: readonly string[],
  boundaries: boolean,
): string {
  const first = (d: number) => users[d]!.split(' ')[0]!;
  const words = inputs.flatMap((input): string[] => {
    switch (input.type) {
      case 'POST': {
        const how = [
          input.name ? `name ${input.name}` : undefined,
          input.quorum ? `quorum ${input.quorum}` : undefined,
          input.timeout ? `timeout ${input.timeout} s` : 'the default timeout',
        ].filter(Boolean);
        return [`alert ${input.task} (${how.join(', ')}) at ${sec(input.at)}`];
      }
      case 'TAP': {
        const note = boundaries ? BOUNDARIES.find(([ms]) => ms === input.at)?.[1] : undefined;
        return [`${first(input.device)} taps at ${sec(input.at)}${note ? ` (${note})` : ''}`];
      }
      case 'DELETE':
        return [`${input.task} cancelled at ${sec(input.at)}`];
      case 'DROP':
        return [`${first(input.device)} drops off at ${sec(input.at)}`];
      case 'RETURN':
        return [`${first(input.device)} comes back at ${sec(input.at)}`];
      default: // ADVANCE: the run to the end (`duration`).
        return [];
    }
  });
  return words.join(', ');
}

/** How each task ends, and the cancels refused, as the model predicts. */
function outcomeWords(p: ReturnType<typeof predict>): string {
  const outcomes = p.tasks.map((t) =>
    t.endedAt === null
      ? `${t.key} still alerting`
      : `${t.key} ends by ${t.outcome === 'timed_out' ? 'timeout' : t.outcome} at ${sec(t.endedAt)} with ${t.acks} acknowledgement${t.acks === 1 ? '' : 's'}`,
  );
  const refused = p.deletes
    .filter((d) => d.status === 409)
    .map((d) => `the cancel of ${d.task} answers 409`);
  return [...outcomes, ...refused].join(', ');
}

/** The scenario as YAML: steps and events one line each. */
export function scenarioYaml(scenario: Scenario, inputs: readonly ModelInput[]): string {
  const doc = new Document(scenario);
  doc.commentBefore = [
    ' Made by badge-sim generate from the alert model (model/): its expectations are the',
    ' model’s prediction. Inputs of the path:',
    ` ${JSON.stringify(inputs)}`,
  ].join('\n');
  const timeline = doc.get('timeline', true);
  if (isSeq(timeline))
    for (const item of timeline.items) if (isMap(item) && !item.has('alert')) item.flow = true;
  const items = doc.getIn(['expect', 'events', 'items'], true);
  if (isSeq(items)) for (const item of items.items) if (isMap(item)) item.flow = true;
  const heard = doc.getIn(['expect', 'heard'], true);
  if (isMap(heard))
    for (const pair of heard.items) {
      const exactly = isMap(pair.value) ? pair.value.get('exactly', true) : undefined;
      if (isSeq(exactly)) for (const item of exactly.items) if (isMap(item)) item.flow = true;
    }
  for (const key of ['states', 'tasks'] as const) {
    const node = doc.getIn(['expect', key], true);
    if (isMap(node)) for (const pair of node.items) if (isMap(pair.value)) pair.value.flow = true;
  }
  return doc.toString({ lineWidth: 0 });
}
