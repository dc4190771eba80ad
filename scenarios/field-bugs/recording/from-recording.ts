/**
 * A session recording (`badge-sim stub --record`, `GET /_stub/recording`) turned into a
 * scenario (`badge-sim record`): its fixtures, the badges that connected, a timeline that
 * replays what the session's clients and badges did at the times they did it, and
 * expectations equal to what was observed. Where something had to be inferred, the step
 * carries a comment (decisions RS6–RS13). Its requests as steps are `recording-requests.ts`,
 * when things happened `recording-timing.ts`, the YAML `recording-yaml.ts`.
 */
import { basename } from 'node:path';
import type { FixtureAccount, Fixtures } from '../../../fixtures/fixtures.schema.ts';
import { ownValue } from '../../../input/own.ts';
import type { JournalEntry } from '../../../protocol/journal.schema.ts';
import type { RecordLine } from '../../../protocol/recording.schema.ts';
import { DEFAULT_SETTINGS } from '../../../server-stub/settings.ts';
import type { Scenario, ScenarioSettings } from '../../format/scenario.schema.ts';
import type { Step } from '../../format/step.schema.ts';
import { RecordingError } from './read-recording.ts';
import { expectedEvents, expectedHeard, type ReplayView } from './recording-expectations.ts';
import { trimmedFixtures } from './recording-fixtures.ts';
import { requestStep } from './recording-requests.ts';
import { type Acted, micros, type RecordTiming, timingOf } from './recording-timing.ts';
import { type Comments, toYaml } from './recording-yaml.ts';

export {
  parseRecording,
  RECORDING_FILE_MAX_CHARS,
  RecordingError,
  readRecording,
} from './read-recording.ts';

export interface FromRecordingOptions {
  /** The recording's file, for `proves:` and messages. */
  file: string;
  name?: string;
  /** Fixtures to use instead of the recorded ones (with the real keys, say). */
  fixtures?: Fixtures;
  /** What reading the recording found missing (`readRecording`), said first. */
  notes?: string[];
  /** Keep every account, group, device and workflow, not only what the session touched (RS16). */
  allFixtures?: boolean;
}

/** A scenario made from a recording, and its YAML with comments where something was inferred. */
export interface RecordedScenario {
  scenario: Scenario;
  yaml: string;
  /** Things the reader should know (sessions left out, records dropped past the cap). */
  notes: string[];
}

export function scenarioFromRecording(
  all: RecordLine[],
  options: FromRecordingOptions,
): RecordedScenario {
  const { session, records, earlier } = lastSession(all, options);
  const notes = [...(options.notes ?? []), ...notesOn(all, session, earlier)];
  const fixtures = withoutBehaviours(
    options.fixtures ?? (session?.fixtures as Fixtures | undefined) ?? noFixtures(options.file),
  );
  const account = accountOf(records, fixtures);
  const start = micros((session ?? records[0])!);
  const end = micros((records.at(-1) ?? session)!);
  const timing = timingOf(records);
  const replay = new Replay(account, start, end, timing);
  replay.add(records);
  const events = expectedEvents(records, account.subscriber_id, timing, replay);
  const heard = expectedHeard(records, timing, replay, replay.offsetMs(end));
  const trimmed = options.allFixtures
    ? { fixtures, left: undefined }
    : trimmedFixtures(fixtures, account.subscriber_id, {
        devices: replay.badges,
        users: events.items.flatMap((e) => (e.device === undefined ? [] : [e.device])),
        steps: replay.timeline as Record<string, unknown>[],
      });
  const duration = atText((end - start) / 1000);
  const count = (kind: string) => records.filter((r) => r.kind === kind).length;
  const file = basename(options.file);
  const settings = scenarioSettingsOf(session);
  const scenario: Scenario = {
    name: options.name ?? `Recorded session ${file}`,
    proves: `Recorded with badge-sim stub --record (${file}), from ${(session ?? records[0])!.time} on the stub's clock, ${duration} long: ${count('request')} requests, ${count('tap')} taps, ${events.items.length} events; replaying it gives the same events and answers.`,
    ...(settings ? { settings } : {}),
    fixtures: trimmed.fixtures,
    account: account.subscriber_id,
    badges: replay.badges.length === 0 ? 'none' : { devices: replay.badges.map(replay.ref) },
    timeline: replay.timeline,
    duration,
    expect: { events: { only: true, items: events.items }, ...(heard ? { heard } : {}) },
  };
  const steps = replay.stepComments();
  const comments = new Map([...steps.comments, ...events.comments]);
  const order = steps.shared ? [SAME_INSTANT] : [];
  const header = trimmed.left
    ? [
        `The fixtures are trimmed to what the session touched (left out: ${trimmed.left});`,
        'badge-sim record --all-fixtures keeps them all.',
      ]
    : [];
  const yaml = toYaml(scenario, comments, [...order, ...notes], session, header);
  return { scenario, yaml, notes };
}

/** Said in the scenario when steps share a time: how their order was chosen (RS11). */
const SAME_INSTANT =
  'steps at the same time run in the order listed, the order the stub acted on them (its clock to the µs, then the order it recorded)';

/** The stub settings a recording keeps that a scenario can set (decisions RS9, Y4). */
const SCENARIO_SETTINGS = [
  ['cancelEvents', 'cancel_events'],
  ['unknownFields', 'unknown_fields'],
] as const;

/** The settings of the session that are not the defaults, as a scenario's `settings:`. */
function scenarioSettingsOf(session: RecordLine | undefined): ScenarioSettings | undefined {
  const settings: Record<string, unknown> = {};
  for (const [name, key] of SCENARIO_SETTINGS) {
    const value = ownValue(settingsOf(session), name);
    if (value !== undefined && value !== ownValue(DEFAULT_SETTINGS, name)) settings[key] = value;
  }
  return Object.keys(settings).length > 0 ? (settings as ScenarioSettings) : undefined;
}

/** What the reader should know of the recording as a whole: sessions left out, drops, settings. */
function notesOn(all: RecordLine[], session: RecordLine | undefined, earlier: number): string[] {
  const notes: string[] = [];
  if (earlier > 0)
    notes.push(
      `the recording has ${earlier + 1} sessions (the stub was reset or given fixtures); the scenario replays the last`,
    );
  const capped = all.find((r) => r.kind === 'capped');
  const end = all.findLast((r) => r.kind === 'end');
  const dropped = typeof end?.dropped === 'number' ? end.dropped : undefined;
  if (capped)
    notes.push(
      `the recording reached its limit of ${capped.limit} records at ${capped.time}${dropped === undefined ? '' : `: ${dropped} records were dropped`}; the scenario replays what came before`,
    );
  for (const [name, key] of SCENARIO_SETTINGS) {
    const value = ownValue(settingsOf(session), name);
    if (value !== undefined && value !== ownValue(DEFAULT_SETTINGS, name))
      notes.push(
        `the stub ran with ${name} ${JSON.stringify(value)}: the scenario sets settings.${key} so (run it embedded, or against a stub started so)`,
      );
  }
  return notes;
}

/** The timeline that replays a session's records, with its comments and the badges it needs. */
class Replay implements ReplayView {
  readonly comments: Comments = new Map();
  /** The steps made so far, each with the instant the stub acted on what it replays. */
  readonly #steps: { acted: Acted; step: Record<string, unknown>; comments: string[] }[] = [];
  /** Task ids of the recording, by the `as` name of the step that created them. */
  readonly taskNames = new Map<string, string>();
  readonly #nameCounts = new Map<string, number>();
  /** Devices that connected, in order: they run badges. */
  readonly badges: string[] = [];
  readonly ref: (deviceId: string) => string;
  readonly #devices: Set<string>;
  /** Connects that end a drop: replayed as `online`. */
  readonly #returns = new Set<RecordLine>();

  constructor(
    readonly account: FixtureAccount,
    readonly start: number,
    readonly end: number,
    readonly timing: RecordTiming,
  ) {
    this.ref = deviceRefs(account);
    this.#devices = new Set(account.devices.map((d) => d.id));
  }

  /** An instant (µs) from the session's start, as a step writes it. */
  at(instant: number): string {
    return atText(this.offsetMs(instant));
  }

  offsetMs(instant: number): number {
    return Math.max(0, Math.round((instant - this.start) / 1000));
  }

  /**
   * The steps in the order the stub acted on what they replay (RS11): by instant, then by
   * `seq`; a badge that connected late is off the network from the start, before anything.
   */
  get timeline(): Step[] {
    return this.#ordered().map(({ acted, step }) => ({ at: this.at(acted.at), ...step }) as Step);
  }

  #ordered() {
    return [...this.#steps].sort(
      (a, b) => a.acted.at - b.acted.at || a.acted.order - b.acted.order,
    );
  }

  /** The comments of the steps, at their places in the timeline, and whether two share an instant. */
  stepComments(): { comments: Comments; shared: boolean } {
    const comments: Comments = new Map(this.comments);
    let shared = false;
    this.#ordered().forEach(({ acted, comments: texts }, i, all) => {
      if (i > 0 && this.at(all[i - 1]!.acted.at) === this.at(acted.at)) shared = true;
      if (texts.length > 0) comments.set(`timeline.${i}`, texts);
    });
    return { comments, shared };
  }

  add(records: RecordLine[]): void {
    const nextConnect = nextConnects(records);
    for (const record of records) {
      const device = typeof record.device === 'string' ? record.device : undefined;
      if (record.kind === 'request') this.#request(record);
      else if (record.kind === 'clock' && record.mode !== 'virtual')
        this.#comment(
          'timeline',
          `${record.time}: the clock switched to ${record.mode} time; the scenario replays on the virtual clock`,
        );
      else if (device === undefined || !this.#devices.has(device)) continue;
      else if (record.kind === 'tap') this.#tap(record, device);
      else if (record.kind === 'connect') this.#connect(record, device);
      else if (record.kind === 'close') this.#close(record, device, nextConnect.get(record));
      else if (record.kind === 'battery' && typeof record.level === 'number')
        this.#push(record, {
          battery: this.ref(device),
          level: record.level,
          ...(typeof record.status === 'string' ? { status: record.status } : {}),
        });
    }
  }

  #push(record: RecordLine, step: Record<string, unknown>, ...comments: string[]): void {
    this.#steps.push({ acted: this.timing.acted(record), step, comments });
  }

  #comment(path: string, text: string): void {
    this.comments.set(path, [...(this.comments.get(path) ?? []), text]);
  }

  #request(record: RecordLine): void {
    const made = requestStep(
      record.request as JournalEntry,
      this.account,
      this.taskNames,
      this.#nameCounts,
    );
    if ('skip' in made) this.#comment('timeline', `${record.time}: ${made.skip}`);
    else this.#push(record, made.step, ...made.comments);
  }

  #tap(record: RecordLine, device: string): void {
    const acknowledged = this.taskNames.get(record.task_id as string) ?? record.task_id;
    const via = record.via === 'control' ? 'POST /_stub/devices/…/tap' : 'the badge';
    this.#push(
      record,
      { tap: this.ref(device) },
      `recorded: ${via}, ${record.result ?? record.refused}${acknowledged ? ` (${acknowledged})` : ''}`,
    );
  }

  #connect(record: RecordLine, device: string): void {
    if (!this.badges.includes(device)) {
      this.badges.push(device);
      if (micros(record) > this.start) {
        // A badge runs from the start: it stays off the network until it first connected.
        this.#steps.push({
          acted: { at: this.start, order: 0 },
          step: { offline: this.ref(device) },
          comments: [],
        });
        this.#push(record, { online: this.ref(device) }, 'recorded: its first connect');
      }
    } else if (record.replaced === true) {
      this.#comment(
        'timeline',
        `${record.time}: ${this.ref(device)} connected again over a connection the stub still held (half-open): replaced`,
      );
    } else if (this.#returns.has(record)) {
      this.#push(record, { online: this.ref(device) });
    }
  }

  #close(record: RecordLine, device: string, back: RecordLine | undefined): void {
    // Every disconnect alike, the session's last too (RS14): which of them the stub's own
    // stop caused, the recording cannot tell, and going offline at the end changes nothing.
    this.#push(record, { offline: this.ref(device) });
    if (back) this.#returns.add(back);
  }
}

/** For each `close` record, the next `connect` of that device, if any (one pass, from the end). */
function nextConnects(records: RecordLine[]): Map<RecordLine, RecordLine> {
  const next = new Map<RecordLine, RecordLine>();
  const seen = new Map<unknown, RecordLine>();
  for (let i = records.length - 1; i >= 0; i--) {
    const record = records[i]!;
    if (record.kind === 'connect') seen.set(record.device, record);
    else if (record.kind === 'close') {
      const back = seen.get(record.device);
      if (back) next.set(record, back);
    }
  }
  return next;
}

/** The records of the last session (after the last reset or fixture load), and its start. */
function lastSession(all: RecordLine[], options: FromRecordingOptions) {
  const sessions = all.filter((r) => r.kind === 'session');
  const session = sessions.at(-1);
  if (!session && !options.fixtures)
    throw new RecordingError(
      `badge-sim: ${options.file}: no session record (the recording's first line, with the fixtures): give --fixtures`,
    );
  const from = session ? all.indexOf(session) + 1 : 0;
  const records = all
    .slice(from)
    .filter((r) => r.kind !== 'capped' && r.kind !== 'end' && r.kind !== 'session')
    // A request is recorded when its answer went, at the time it arrived: by time, then as written.
    .sort((a, b) => micros(a) - micros(b) || a.seq - b.seq);
  if (!session && records.length === 0)
    throw new RecordingError(
      `badge-sim: ${options.file}: nothing to replay: the recording holds no request, badge or event`,
    );
  return { session, records, earlier: Math.max(0, sessions.length - 1) };
}

function settingsOf(session: RecordLine | undefined): Record<string, unknown> {
  const settings = session?.settings;
  return typeof settings === 'object' && settings !== null && !Array.isArray(settings)
    ? (settings as Record<string, unknown>)
    : {};
}

function noFixtures(file: string): never {
  throw new RecordingError(`badge-sim: ${file}: no fixtures in the recording: give --fixtures`);
}

/** The recorded taps replay what behaviours did: a device's own behaviour would tap twice (RS7). */
function withoutBehaviours(fixtures: Fixtures): Fixtures {
  const copy = structuredClone(fixtures);
  for (const account of copy.accounts)
    for (const device of account.devices) delete device.behaviour;
  return copy;
}

/** The account most requests named, else the fixtures' first. */
function accountOf(records: RecordLine[], fixtures: Fixtures): FixtureAccount {
  const counts = new Map<string, number>();
  for (const record of records) {
    const id = (record.request as JournalEntry | undefined)?.account;
    if (typeof id === 'string') counts.set(id, (counts.get(id) ?? 0) + 1);
  }
  const busiest = [...counts].sort((a, b) => b[1] - a[1])[0]?.[0];
  const account =
    fixtures.accounts.find((a) => a.subscriber_id === busiest) ?? fixtures.accounts[0];
  if (!account) throw new RecordingError('badge-sim: the fixtures have no account to replay in');
  return account;
}

/** A device as steps name it: its user's name when no other device of the account has it. */
function deviceRefs(account: FixtureAccount): (deviceId: string) => string {
  const users = new Map<string, number>();
  for (const d of account.devices) users.set(d.user, (users.get(d.user) ?? 0) + 1);
  const ids = new Set(account.devices.map((d) => d.id));
  // A name that is also a device id would be read as that id: the id is written instead.
  const named = (d: FixtureAccount['devices'][number]) =>
    users.get(d.user) === 1 && !ids.has(d.user);
  const names = new Map(account.devices.map((d) => [d.id, named(d) ? d.user : d.id]));
  return (deviceId) => names.get(deviceId) ?? deviceId;
}

/** A whole-ms duration as a scenario writes it: `12s`, `1500ms`. */
function atText(ms: number): string {
  const whole = Math.max(0, Math.round(ms));
  return whole % 1000 === 0 ? `${whole / 1000}s` : `${whole}ms`;
}
