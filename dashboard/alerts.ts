/**
 * The alerts panel: active and recent tasks with their progress and a Cancel button, and the
 * form that sends an alert or a broadcast as a client would, through the emulated API with
 * the account's key (typed, or filled in from the fixtures the control API serves).
 */
import type { LiveTask } from '../protocol/live-stream.schema.ts';
import { duration, el, setText } from './dom.ts';

export interface TaskActions {
  cancel(task: LiveTask): void;
  /** Whether a device is online now, as the stream last said (unknown devices count as online). */
  online(deviceId: string): boolean;
}

/** Draws the tasks again; the Cancel button that had the focus gets it back. */
export function renderTasks(list: HTMLElement, tasks: LiveTask[], actions: TaskActions): void {
  const focused = (document.activeElement as HTMLElement | null)?.dataset?.task;
  list.replaceChildren(...tasks.map((task) => taskItem(task, actions)));
  if (focused)
    list.querySelector<HTMLElement>(`button[data-task="${CSS.escape(focused)}"]`)?.focus();
  if (tasks.length === 0) list.append(el('li', { class: 'empty', text: 'No alert yet.' }));
}

function taskItem(task: LiveTask, actions: TaskActions): HTMLElement {
  const alerting = task.state === 'alerting';
  const cancel = el('button', {
    type: 'button',
    class: 'cancel',
    'data-task': task.task_id,
    'aria-label': `Cancel the alert “${task.notification}”`,
    text: 'Cancel',
  });
  cancel.addEventListener('click', () => actions.cancel(task));
  const outcome = alerting ? 'alerting' : `ended: ${task.outcome ?? 'normally'}`;
  return el(
    'li',
    { class: `task ${task.state}`, 'data-task-id': task.task_id },
    el(
      'header',
      {},
      el('strong', { text: task.notification }),
      el('span', { class: 'outcome', text: outcome }),
    ),
    el(
      'p',
      { class: 'progress' },
      el('span', { class: 'acks', text: `${task.acknowledgements} / ${task.quorum} acknowledged` }),
      ' · ',
      el('span', {
        class: 'time-left',
        'data-timeout-at': alerting ? task.timeout_at : undefined,
        text: alerting ? '' : `timeout ${task.timeout} s`,
      }),
    ),
    recipients(task, actions),
    alerting ? cancel : null,
  );
}

/** Badges named on a task, at most; the others are counted by status (a task may have 1,000). */
const RECIPIENTS_SHOWN = 12;

/**
 * A recipient's status as it is: the stub keeps an offline badge "playing" (it goes on sending
 * it the repeats), but nobody hears them, so the card says it is offline (UI13).
 */
function statusOf(device: LiveTask['devices'][number], actions: TaskActions): string {
  const waiting = device.status === 'playing' || device.status === 'queued';
  return waiting && !actions.online(device.device_id) ? 'offline, not acknowledged' : device.status;
}

function recipients(task: LiveTask, actions: TaskActions): HTMLElement {
  const list = el(
    'ul',
    { class: 'recipients' },
    ...task.devices.slice(0, RECIPIENTS_SHOWN).map((d) => {
      const status = statusOf(d, actions);
      return el('li', { class: `status-${status.split(',')[0]}`, text: `${d.user}: ${status}` });
    }),
  );
  const rest = task.devices.slice(RECIPIENTS_SHOWN);
  if (rest.length > 0) {
    const counts = new Map<string, number>();
    for (const d of rest) {
      const status = statusOf(d, actions);
      counts.set(status, (counts.get(status) ?? 0) + 1);
    }
    const summary = [...counts].map(([status, n]) => `${n} ${status}`).join(', ');
    list.append(el('li', { class: 'more', text: `and ${rest.length} more: ${summary}` }));
  }
  return list;
}

/** Refreshes every "time left" of the list from the stub's clock now (ms). */
export function tickTimeLeft(list: HTMLElement, nowMs: number): void {
  for (const span of list.querySelectorAll<HTMLElement>('[data-timeout-at]')) {
    const left = (Date.parse(span.dataset.timeoutAt!) - nowMs) / 1000;
    setText(span, `${duration(left)} to timeout`);
  }
}
