/**
 * How two worlds differ, in words (`badge-sim diff A B`, issue 32 point 5; decisions WS31–WS33):
 * a pure function from two views (world-views.ts) to a list of differences, each naming its
 * part (the instant, a task, an account's events, a device, a badge, a generator) and saying
 * what A and B hold. Empty when the worlds are the same.
 */
import { formatTimestamp } from '../protocol/timestamp.ts';
import type { BadgeFacts, TaskFacts, WorldView } from './world-views.ts';

type DiffPart = 'instant' | 'tasks' | 'events' | 'devices' | 'badges' | 'generators';

export interface Difference {
  part: DiffPart;
  /** What differs: a task id, an account, a device id, a generator; '' for the instant. */
  subject: string;
  text: string;
}

/** How many events only one world holds are quoted (the rest are counted). */
const EVENTS_QUOTED = 3;

/** Every difference between world A and world B, part by part, each in a sentence. */
export function diffWorlds(a: WorldView, b: WorldView): Difference[] {
  return [
    ...instant(a.at, b.at),
    ...keyed('tasks', a.tasks, b.tasks, taskWords, taskChanges),
    ...accountEvents(a.events, b.events),
    ...keyed('devices', a.devices, b.devices, deviceWords, deviceChanges),
    ...keyed('badges', a.badges, b.badges, badgeWords, badgeChanges),
    ...keyed('generators', a.generators, b.generators, () => '', generatorChange),
  ];
}

function instant(a: number, b: number): Difference[] {
  if (a === b) return [];
  const by = Math.abs(b - a) / 1000;
  const text = `A is at ${formatTimestamp(a)}, B at ${formatTimestamp(b)} (B ${by} s ${b > a ? 'later' : 'earlier'})`;
  return [{ part: 'instant', subject: '', text }];
}

/**
 * What one map of items holds that the other lacks, and what differs in items both hold:
 * `words` says an item alone, `changes` says what differs (empty when nothing does).
 */
function keyed<T>(
  part: DiffPart,
  a: Map<string, T> | undefined,
  b: Map<string, T> | undefined,
  words: (item: T) => string,
  changes: (a: T, b: T) => string[],
): Difference[] {
  if (!a || !b) return [];
  const noun = { tasks: 'task', devices: 'device', badges: 'badge', generators: '' }[
    part as 'tasks'
  ];
  const name = (key: string) => (noun ? `${noun} ${key}` : key);
  const found: Difference[] = [];
  for (const [key, item] of a) {
    const other = b.get(key);
    if (other === undefined)
      found.push({ part, subject: key, text: `${name(key)} only in A${said(words(item))}` });
    else {
      const changed = changes(item, other);
      if (changed.length > 0)
        found.push({ part, subject: key, text: `${name(key)}: ${changed.join('; ')}` });
    }
  }
  for (const [key, item] of b)
    if (!a.has(key))
      found.push({ part, subject: key, text: `${name(key)} only in B${said(words(item))}` });
  return found;
}

const said = (words: string) => (words ? `: ${words}` : '');

/** "x → y" of a field that differs, or nothing. */
function change(what: string, a: unknown, b: unknown): string[] {
  return a === b ? [] : [`${what} ${String(a)} in A, ${String(b)} in B`];
}

const pending = (task: TaskFacts) =>
  Object.values(task.devices).filter((s) => s === 'playing' || s === 'queued').length;

function taskWords(task: TaskFacts): string {
  const ended = task.outcome ? ` (${task.outcome})` : '';
  return `"${task.name}" of account ${task.account}, ${task.state}${ended}, ${task.acknowledgements} acknowledgement(s), ${pending(task)} device(s) pending`;
}

function taskChanges(a: TaskFacts, b: TaskFacts): string[] {
  const devices = [...new Set([...Object.keys(a.devices), ...Object.keys(b.devices)])];
  return [
    ...change('state', a.state, b.state),
    ...change('outcome', a.outcome, b.outcome),
    ...change('acknowledgements', a.acknowledgements, b.acknowledgements),
    ...change('devices pending', pending(a), pending(b)),
    ...devices.flatMap((id) => change(`device ${id}`, a.devices[id], b.devices[id])),
  ];
}

type DeviceFacts = { online: boolean; battery: number | null };
const onlineWord = (online: boolean) => (online ? 'online' : 'offline');

function deviceWords(device: DeviceFacts): string {
  return `${onlineWord(device.online)}, battery ${device.battery ?? 'unknown'}`;
}

function deviceChanges(a: DeviceFacts, b: DeviceFacts): string[] {
  return [
    ...change('', onlineWord(a.online), onlineWord(b.online)).map((s) => s.trimStart()),
    ...change('battery', a.battery ?? 'unknown', b.battery ?? 'unknown'),
  ];
}

function badgeWords(badge: BadgeFacts): string {
  return `${badge.state}, ${badge.clip ? `playing ${badge.clip}` : 'no clip'}, battery ${badge.battery}`;
}

function badgeChanges(a: BadgeFacts, b: BadgeFacts): string[] {
  return [
    ...change('state', a.state, b.state),
    ...change('clip', a.clip ?? 'none', b.clip ?? 'none'),
    ...change('battery', a.battery, b.battery),
  ];
}

function generatorChange(a: string, b: string): string[] {
  return a === b ? [] : ['its state differs: what it draws next differs'];
}

/** Each account's events only one world holds: counted, and the first few quoted. */
function accountEvents(
  a: Map<string, string[]> | undefined,
  b: Map<string, string[]> | undefined,
): Difference[] {
  if (!a || !b) return [];
  const accounts = [...new Set([...a.keys(), ...b.keys()])];
  return accounts.flatMap((account) => {
    const inA = a.get(account) ?? [];
    const inB = b.get(account) ?? [];
    const setA = new Set(inA);
    const setB = new Set(inB);
    const onlyA = inA.filter((e) => !setB.has(e));
    const onlyB = inB.filter((e) => !setA.has(e));
    if (onlyA.length === 0 && onlyB.length === 0) return [];
    const parts = [onlyIn('A', onlyA), onlyIn('B', onlyB)].filter(Boolean);
    return [
      {
        part: 'events' as const,
        subject: account,
        text: `events of account ${account}: ${parts.join('; ')}`,
      },
    ];
  });
}

function onlyIn(world: 'A' | 'B', events: string[]): string {
  if (events.length === 0) return '';
  const quoted = events.slice(0, EVENTS_QUOTED).join(' | ');
  const more = events.length > EVENTS_QUOTED ? ` | and ${events.length - EVENTS_QUOTED} more` : '';
  return `${events.length} only in ${world} (${quoted}${more})`;
}
