/**
 * The dashboard at /_stub/ui/: one live stream from the stub (`GET /_stub/stream`) drawn as
 * badge cards, alerts, a timeline and the clock; every control goes through the stub's own
 * APIs (the control API, and the emulated API with an account's key to send or cancel).
 */

import type { ClockView } from '../protocol/control-api.schema.ts';
import type {
  LiveDevice,
  LiveSnapshot,
  LiveTask,
  LiveUpdate,
} from '../protocol/live-stream.schema.ts';
import { renderTasks } from './alerts.ts';
import { ApiError, CONTROL, controlToken, readStream, send, setControlToken } from './api.ts';
import { BadgeGrid } from './badges.ts';
import { readClock, renderClock } from './clock.ts';
import { byId, setOptions, setText } from './dom.ts';
import { type Names, snapshotEntries, updateEntries } from './stream-entries.ts';
import { renderLanes, renderTimeline, TIMELINE_MAX, type TimelineEntry } from './timeline.ts';

const state = {
  clock: undefined as ClockView | undefined,
  /** performance.now() when `clock` arrived: a running clock is read forward from it. */
  clockAt: 0,
  accounts: [] as LiveSnapshot['accounts'],
  order: [] as string[],
  devices: new Map<string, LiveDevice>(),
  tasks: [] as LiveTask[],
  timeline: [] as TimelineEntry[],
  /** The last tap or switch result of each badge, shown on its card. */
  notes: new Map<string, string>(),
  keys: new Map<string, string>(),
  authScheme: 'ServiceApiKey',
};

const grid = new BadgeGrid(byId('badges'), byId('badge-sizer'), byId('badge-grid'), {
  tap: (id) => void act(id, `${CONTROL}/devices/${encodeURIComponent(id)}/tap`, tapNote),
  setOnline: (id, online) =>
    void act(
      id,
      `${CONTROL}/devices/${encodeURIComponent(id)}/${online ? 'online' : 'offline'}`,
      // Said until the stream tells the switch; the answer may come after it did.
      () =>
        state.devices.get(id)?.online === online ? '' : online ? 'Coming back…' : 'Going offline…',
    ),
});

function tapNote(result: { result: string }): string {
  return `Tap: ${result.result.replace('_', ' ')}`;
}

async function act<T>(deviceId: string, path: string, note: (answer: T) => string) {
  try {
    state.notes.set(deviceId, note(await send<T>(path, { method: 'POST' })));
  } catch (error) {
    state.notes.set(deviceId, (error as Error).message);
  }
  redraw('badges');
}

const clockNow = () => readClock(state.clock, state.clockAt);

// Drawing happens once a frame, for what changed since the last.
const dirty = new Set<'badges' | 'tasks' | 'timeline' | 'clock' | 'filters'>();
let frame = 0;
function redraw(...parts: (typeof dirty extends Set<infer P> ? P : never)[]) {
  for (const part of parts) dirty.add(part);
  if (frame !== 0) return;
  frame = requestAnimationFrame(() => {
    frame = 0;
    if (dirty.has('filters')) drawFilters();
    if (dirty.has('badges') || dirty.has('filters')) drawBadges();
    if (dirty.has('tasks'))
      renderTasks(byId('tasks'), state.tasks, {
        cancel,
        online: (id) => state.devices.get(id)?.online ?? true,
      });
    if (dirty.has('timeline') || dirty.has('filters')) drawTimeline();
    drawClock();
    dirty.clear();
  });
}

function drawFilters() {
  const account = byId<HTMLSelectElement>('filter-account');
  setOptions(account, [
    ['', 'All accounts'],
    ...state.accounts.map((a): [string, string] => [a.subscriber_id, a.name ?? a.subscriber_id]),
  ]);
  const chosen = state.accounts.filter(
    (a) => account.value === '' || a.subscriber_id === account.value,
  );
  const groups = [...new Set(chosen.flatMap((a) => a.groups))];
  setOptions(byId<HTMLSelectElement>('filter-group'), [
    ['', 'All groups'],
    ...groups.map((g): [string, string] => [g, g]),
  ]);
  const sendAccount = byId<HTMLSelectElement>('send-account');
  setOptions(
    sendAccount,
    state.accounts.map((a) => [a.subscriber_id, a.name ?? a.subscriber_id]),
  );
  const sendGroups =
    state.accounts.find((a) => a.subscriber_id === sendAccount.value)?.groups ?? [];
  setOptions(
    byId<HTMLSelectElement>('send-group'),
    sendGroups.map((g) => [g, g]),
  );
  const key = byId<HTMLInputElement>('send-key');
  if (key.dataset.account !== sendAccount.value) {
    key.dataset.account = sendAccount.value;
    key.value = state.keys.get(sendAccount.value) ?? '';
  }
  const users = [...new Set(state.order.map((id) => state.devices.get(id)?.user ?? id))];
  setOptions(byId<HTMLSelectElement>('timeline-filter'), [
    ['', 'Everything'],
    ['alert', 'Alerts only'],
    ...users.map((u): [string, string] => [u, u]),
  ]);
}

function drawBadges() {
  const account = byId<HTMLSelectElement>('filter-account').value;
  const group = byId<HTMLSelectElement>('filter-group').value;
  const text = byId<HTMLInputElement>('filter-text').value.trim().toLowerCase();
  const ids = state.order.filter((id) => {
    const d = state.devices.get(id);
    if (!d) return false;
    if (account && d.subscriber_id !== account) return false;
    if (group && !d.groups.includes(group)) return false;
    return !text || d.user.toLowerCase().includes(text) || d.device_id.toLowerCase().includes(text);
  });
  const online = ids.reduce((n, id) => n + (state.devices.get(id)?.online ? 1 : 0), 0);
  setText(byId('badge-count'), `${ids.length} shown · ${online} online`);
  grid.show(ids, state.devices, state.notes);
}

function drawTimeline() {
  const lane = byId<HTMLSelectElement>('timeline-filter').value;
  renderLanes(byId('lanes'), state.timeline, lane, new Date(clockNow()).toISOString());
  renderTimeline(byId('timeline'), state.timeline, lane);
}

function drawClock() {
  if (state.clock) renderClock(state.clock, clockNow());
}

function addTimeline(entries: TimelineEntry[]) {
  if (entries.length === 0) return;
  state.timeline.push(...entries);
  state.timeline.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
  if (state.timeline.length > TIMELINE_MAX)
    state.timeline.splice(0, state.timeline.length - TIMELINE_MAX);
}

const names: Names = {
  user: (id) => state.devices.get(id)?.user ?? id,
  notification: (taskId) => state.tasks.find((t) => t.task_id === taskId)?.notification,
};

function onSnapshot(snapshot: LiveSnapshot) {
  state.clock = snapshot.clock;
  state.clockAt = performance.now();
  state.accounts = snapshot.accounts;
  state.order = snapshot.devices.map((d) => d.device_id);
  state.devices = new Map(snapshot.devices.map((d) => [d.device_id, d]));
  state.tasks = snapshot.tasks;
  state.timeline = [];
  state.notes.clear();
  // What the badges heard and did before the page opened (or was reloaded), not only the last clip.
  addTimeline(snapshotEntries(snapshot, names));
  redraw('filters', 'badges', 'tasks', 'timeline');
}

function onUpdate(update: LiveUpdate) {
  state.clock = update.clock;
  state.clockAt = performance.now();
  if (update.tasks) state.tasks = update.tasks;
  const entries = updateEntries(update, names);
  // A recipient going offline changes what its alert's card says.
  let onlineChanged = false;
  for (const device of update.devices) {
    const before = state.devices.get(device.device_id);
    // "Going offline…" was true until it went: the card now says what is.
    if (before && before.online !== device.online) {
      state.notes.delete(device.device_id);
      onlineChanged = true;
    }
    state.devices.set(device.device_id, device);
  }
  addTimeline(entries);
  redraw(
    'badges',
    ...(update.tasks || onlineChanged ? (['tasks'] as const) : []),
    ...(entries.length ? (['timeline'] as const) : []),
  );
}

async function cancel(task: LiveTask) {
  const result = byId('send-result');
  try {
    await send(
      `/subscribers/${encodeURIComponent(task.subscriber_id)}/api/v1/alerts/${encodeURIComponent(task.task_id)}`,
      {
        method: 'DELETE',
        headers: authorization(task.subscriber_id),
      },
    );
    setText(result, `Cancelled “${task.notification}”.`);
  } catch (error) {
    setText(result, `Cancel refused: ${(error as Error).message}`);
  }
}

function authorization(subscriberId: string): Record<string, string> {
  const typed = byId<HTMLInputElement>('send-key');
  const key =
    typed.dataset.account === subscriberId && typed.value
      ? typed.value
      : state.keys.get(subscriberId);
  return { authorization: `${state.authScheme} ${key ?? ''}` };
}

async function sendAlert(event: SubmitEvent) {
  event.preventDefault();
  const value = (id: string) => byId<HTMLInputElement>(id).value.trim();
  const account = value('send-account');
  const kind = value('send-kind');
  const body: Record<string, unknown> = {
    notification: value('send-text'),
    groups: [value('send-group')],
  };
  if (kind === 'alert') {
    if (value('send-quorum')) body.quorum = Number(value('send-quorum'));
    if (value('send-timeout')) body.timeout = Number(value('send-timeout'));
  }
  const result = byId('send-result');
  try {
    const answer = await send<{ task_id: string }>(
      `/subscribers/${encodeURIComponent(account)}/api/v1/${kind === 'alert' ? 'alerts' : 'broadcasts'}`,
      { method: 'POST', body, headers: authorization(account) },
    );
    setText(result, `Sent: task ${answer.task_id}`);
  } catch (error) {
    setText(result, `Refused: ${(error as Error).message}`);
  }
}

async function advance(body: { by?: string; to?: string }) {
  const buttons = byId('clock-buttons').querySelectorAll('button');
  for (const b of buttons) b.disabled = true;
  try {
    await send(`${CONTROL}/clock/advance`, { method: 'POST', body });
  } catch (error) {
    setText(byId('connection'), `Clock: ${(error as Error).message}`);
  } finally {
    for (const b of buttons) b.disabled = false;
    redraw('clock');
  }
}

/** What the page reads of `GET /_stub/fixtures`: each account's API keys. */
interface AccountKeys {
  accounts: { subscriber_id: string; api_keys: string[] }[];
}

/** The keys of each account and the auth scheme, so the send form works out of the box. */
async function loadSecrets() {
  const [fixtures, settings] = await Promise.all([
    send<AccountKeys>(`${CONTROL}/fixtures`),
    send<{ authScheme: string }>(`${CONTROL}/settings`),
  ]);
  state.authScheme = settings.authScheme;
  state.keys = new Map(fixtures.accounts.map((a) => [a.subscriber_id, a.api_keys[0] ?? '']));
  byId<HTMLInputElement>('send-key').dataset.account = '';
  redraw('filters');
}

let stream: AbortController | undefined;
async function connect() {
  stream?.abort();
  const current = new AbortController();
  stream = current;
  const status = byId('connection');
  setText(status, 'Connecting…');
  for (;;) {
    try {
      await readStream((message) => {
        setText(status, 'Live');
        if (message.name === 'snapshot') onSnapshot(message.data);
        else onUpdate(message.data);
      }, current.signal);
    } catch (error) {
      if (current.signal.aborted) return;
      if (error instanceof ApiError && error.status === 401) {
        askForToken(error.message);
        return;
      }
    }
    if (current.signal.aborted) return;
    setText(status, 'Disconnected: trying again…');
    // A transport guard: the stub restarted or the network blinked.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
}

function askForToken(problem: string) {
  setText(byId('connection'), 'Locked');
  byId('token-form').hidden = false;
  setText(
    byId('token-problem'),
    controlToken() === undefined
      ? `This stub's control API is locked: give its control token. (${problem})`
      : `Wrong control token: ${problem}`,
  );
  byId('token-input').focus();
}

function start() {
  byId('token-form').addEventListener('submit', (event) => {
    event.preventDefault();
    setControlToken(byId<HTMLInputElement>('token-input').value);
    byId<HTMLInputElement>('token-input').value = '';
    byId('token-form').hidden = true;
    void loadSecrets().catch(() => {});
    void connect();
  });
  for (const id of [
    'filter-account',
    'filter-group',
    'filter-text',
    'timeline-filter',
    'send-account',
  ])
    byId(id).addEventListener('input', () => redraw('filters'));
  byId('send-kind').addEventListener('input', () => {
    const alert = byId<HTMLSelectElement>('send-kind').value === 'alert';
    byId<HTMLInputElement>('send-quorum').disabled = !alert;
    byId<HTMLInputElement>('send-timeout').disabled = !alert;
  });
  byId<HTMLFormElement>('send-form').addEventListener('submit', (e) => void sendAlert(e));
  byId('advance-30s').addEventListener('click', () => void advance({ by: '30s' }));
  byId('advance-5m').addEventListener('click', () => void advance({ by: '5m' }));
  byId('advance-next').addEventListener('click', () => {
    const next = state.clock?.next_due_at;
    if (next) void advance({ to: next });
  });
  // A running clock and the time left of each alert move on between messages.
  setInterval(() => {
    if (state.clock && state.clock.mode !== 'virtual') redraw('clock');
  }, 1_000);
  void loadSecrets().catch(() => {});
  void connect();
}

start();
