/**
 * The steps that send a session recording's requests again (decision RS6): alerts named by
 * `as` so a later cancel can name them, broadcasts, cancels, event reads and other requests
 * of the account, each expecting the status it got (a refusal its code and field too, RS15);
 * credentials inferred from the answers; token, trigger and other accounts' requests left out
 * with the reason.
 */
import type { FixtureAccount } from '../../../fixtures/fixtures.schema.ts';
import { ownValue } from '../../../input/own.ts';
import type { JournalEntry } from '../../../protocol/journal.schema.ts';
import { decodedSegment } from './recording-timing.ts';

type StepBody = Record<string, unknown>;

/** Names the alerts a replay creates: `<name>-<n>`, and the task ids of the recording they stand for. */
interface TaskNaming {
  taskNames: Map<string, string>;
  nameCounts: Map<string, number>;
}

/** The step that sends a recorded request again, or why it is left out (RS6). */
export function requestStep(
  entry: JournalEntry,
  account: FixtureAccount,
  taskNames: Map<string, string>,
  nameCounts: Map<string, number>,
): { step: StepBody; comments: string[] } | { skip: string } {
  const what = `${entry.method} ${entry.path}`;
  const prefix = `/subscribers/${account.subscriber_id}/api/v1/`;
  if (/^\/(qa\/)?oauth2\//.test(entry.path))
    return { skip: `${what} left out: the steps' clients get their own tokens` };
  if (!entry.path.startsWith(prefix))
    return { skip: `${what} left out: only the notification interface of the account is replayed` };
  const step = serviceStep(entry, entry.path.slice(prefix.length), { taskNames, nameCounts });
  if (!step) return { skip: `${what} left out: a scenario cannot send it` };
  const comments: string[] = [];
  if (entry.headers.authorization === undefined) step.auth = 'none';
  else if (entry.status === 401) {
    step.auth = 'wrong';
    comments.push('inferred: a 401 with a key: an unknown key (the recording masks keys)');
  } else if (entry.status === 403) {
    step.auth = 'other-account';
    comments.push("inferred: a 403 with a key: another account's key");
  }
  if (entry.truncated?.includes('body'))
    comments.push('the recording cut this body at its limit: complete it by hand');
  if (entry.fault !== null)
    comments.push(
      `a fault (${entry.fault.kind}) shaped this answer: add a fault step to replay it`,
    );
  else if (entry.status !== null) step.expect = { status: entry.status, ...refusalOf(entry) };
  else comments.push('the connection closed before the answer: no status to expect');
  return { step, comments };
}

/**
 * What a refusal (4xx) said beside its status, to expect on a replay (RS15): its `code` and
 * `field` (A1), compared as a partial body; an answer the recording cut is not compared.
 */
function refusalOf(entry: JournalEntry): { body?: { code?: string; field?: string } } {
  if (entry.status === null || entry.status < 400 || entry.status >= 500) return {};
  if (entry.truncated?.includes('answer')) return {};
  const body: { code?: string; field?: string } = {};
  for (const key of ['code', 'field'] as const) {
    const value = ownValue(entry.answer, key);
    if (typeof value === 'string') body[key] = value;
  }
  return Object.keys(body).length > 0 ? { body } : {};
}

/** The step of a request to the account's notification interface (`rest`: after `api/v1/`). */
function serviceStep(entry: JournalEntry, rest: string, naming: TaskNaming): StepBody | undefined {
  const { method, body } = entry;
  if (method === 'POST' && rest === 'alerts' && isObject(body)) {
    const taskId = taskIdOf(entry.answer);
    return taskId === undefined
      ? { alert: body }
      : { alert: body, as: nameTask(taskId, body.name, naming) };
  }
  if (method === 'POST' && rest === 'broadcasts' && isObject(body)) return { broadcast: body };
  const cancelled = method === 'DELETE' ? /^alerts\/([^/]+)$/.exec(rest)?.[1] : undefined;
  if (cancelled !== undefined) {
    const taskId = decodedSegment(cancelled);
    return { cancel: naming.taskNames.get(taskId) ?? taskId };
  }
  if (method === 'GET' && rest === 'events') {
    const { limit, oldest } = entry.query;
    return {
      events: {
        ...(typeof limit === 'string' || typeof limit === 'number' ? { limit } : {}),
        ...(typeof oldest === 'string' ? { oldest } : {}),
      },
    };
  }
  if (!['GET', 'POST', 'DELETE', 'PUT'].includes(method) || rest.includes('..')) return undefined;
  const sent =
    body === null
      ? {}
      : typeof body === 'string'
        ? { raw_body: body, content_type: entry.headers['content-type'] ?? 'text/plain' }
        : { body };
  return { request: { method, path: rest, ...sent } };
}

/** The `as` of an alert step: its name as a slug (`alert` without one) and a count. */
function nameTask(taskId: string, name: unknown, { taskNames, nameCounts }: TaskNaming): string {
  const base = slug(typeof name === 'string' ? name : '') || 'alert';
  const n = (nameCounts.get(base) ?? 0) + 1;
  nameCounts.set(base, n);
  const as = `${base}-${n}`;
  taskNames.set(taskId, as);
  return as;
}

function taskIdOf(answer: unknown): string | undefined {
  if (!isObject(answer)) return undefined;
  const id = ownValue(answer, 'task_id');
  return typeof id === 'string' ? id : undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A task's name as part of an `as` name: letters, digits and dashes. */
function slug(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40);
}
