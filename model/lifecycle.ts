/**
 * The alert lifecycle as the spec and docs/decisions.md tell it (L1–L11, D2–D5, D9, D11's
 * default tap rule, MB1–MB2), written apart from the engine so that the two can disagree: one
 * step function over plain data, which the statechart in `alert.model.ts` runs. It predicts,
 * for inputs in time order, the analytic events, what the service sends each device, and what
 * each device hears.
 *
 * Time counts in ms from the start. Devices and tasks are numbered (array indices), never
 * looked up by a word a client wrote. Everything here is JSON data, so a state can be
 * serialised (the path enumeration tells states apart by it).
 *
 * Each step also says which named transitions (transitions.ts) it took, in `taken`: what
 * `run --coverage` counts.
 */
import {
  DEFAULT_TIMEOUT_S,
  type ModelConfig,
  type ModelDevice,
  type ModelInput,
  type ModelState,
  type ModelTask,
  type OnDevice,
  type Outcome,
  REPEAT_MS,
  type Sent,
} from './lifecycle-state.ts';

/** The state after one input; `state` is not changed. Inputs must come in time order. */
export function step(state: ModelState, input: ModelInput, config: ModelConfig): ModelState {
  const s: ModelState = structuredClone(state);
  s.inputs.push(input);
  s.taken = [];
  const at = input.type === 'ADVANCE' ? input.to : input.at;
  if (at < s.now) throw new RangeError(`model: input at ${at} ms comes before ${s.now} ms`);
  advance(s, at, config);
  if (config.taps === 'badge') for (const device of s.devices) catchUp(device, s.now);
  switch (input.type) {
    case 'POST':
      post(s, input, config);
      break;
    case 'TAP':
      tap(s, input.device, input.task, config);
      break;
    case 'DELETE': {
      const task = s.tasks.find((t) => t.key === input.task);
      if (!task) throw new RangeError(`model: no task ${input.task}`);
      s.deletes.push({ task: task.key, at: s.now, status: task.endedAt === null ? 204 : 409 });
      if (task.endedAt === null) finish(s, task, 'cancelled', config);
      else s.taken.push('delete-of-ended-refused');
      break;
    }
    case 'DROP':
      drop(s, input.device, config);
      break;
    case 'RETURN':
      comeBack(s, input.device, config);
      break;
    case 'ADVANCE':
      break;
  }
  return s;
}

/**
 * The next timer due. Timers due at one instant fire in the order they were set (MB1): an
 * alert's timeout, set at its POST, comes before any of its own repeats (L1), each set by a play.
 */
function nextTimer(s: ModelState): { at: number; fire: (config: ModelConfig) => void } | undefined {
  let best: { at: number; order: number; fire: (config: ModelConfig) => void } | undefined;
  for (const task of s.tasks) {
    if (task.endedAt !== null) continue;
    const at = task.createdAt + task.timeoutMs;
    if (!best || at < best.at || (at === best.at && task.timeoutSeq < best.order))
      best = { at, order: task.timeoutSeq, fire: (c) => finish(s, task, 'timed_out', c) };
  }
  for (const task of s.tasks) {
    if (task.endedAt !== null) continue;
    task.devices.forEach((td, d) => {
      if (td.nextPlayAt === null) return;
      const at = td.nextPlayAt;
      if (!best || at < best.at || (at === best.at && td.playSeq < best.order))
        best = { at, order: td.playSeq, fire: (c) => play(s, task, d, c, 'repeated') };
    });
  }
  return best;
}

function advance(s: ModelState, to: number, config: ModelConfig): void {
  for (let timer = nextTimer(s); timer && timer.at <= to; timer = nextTimer(s)) {
    s.now = timer.at;
    timer.fire(config);
  }
  s.now = to;
}

function post(
  s: ModelState,
  input: Extract<ModelInput, { type: 'POST' }>,
  config: ModelConfig,
): void {
  const count = s.devices.length;
  const task: ModelTask = {
    key: input.task,
    name: input.name ?? 'alerts',
    quorum: input.quorum ?? count,
    timeoutMs: (input.timeout ?? DEFAULT_TIMEOUT_S) * 1000,
    createdAt: s.now,
    timeoutSeq: s.seq++,
    endedAt: null,
    outcome: null,
    acks: 0,
    devices: Array.from({ length: count }, () => ({
      status: 'queued' as OnDevice,
      plays: 0,
      lastPlayAt: 0,
      playSeq: 0,
      nextPlayAt: null,
    })),
  };
  s.tasks.push(task);
  s.events.push({ type: 'start', task: task.key, at: s.now });
  for (let d = 0; d < count; d++) {
    // L7: one of the same name still on this device (playing or queued) keeps it waiting.
    const busy = s.tasks.some(
      (t) =>
        t !== task &&
        t.endedAt === null &&
        t.name === task.name &&
        (t.devices[d]!.status === 'queued' || t.devices[d]!.status === 'playing'),
    );
    if (busy) s.taken.push('queued');
    else play(s, task, d, config, 'played');
  }
}

function play(
  s: ModelState,
  task: ModelTask,
  d: number,
  config: ModelConfig,
  why: 'played' | 'repeated' | 'released' | 'replayed-on-return',
): void {
  s.taken.push(why);
  const td = task.devices[d]!;
  td.status = 'playing';
  td.plays++;
  td.lastPlayAt = s.now;
  td.playSeq = s.seq++;
  td.nextPlayAt = s.now + REPEAT_MS;
  send(
    s,
    d,
    { at: s.now, type: 'play', task: task.key, text: config.texts.notification(task.key) },
    config,
  );
}

/**
 * A tap: which alert it acknowledges depends on the way it takes (see `TapPath`), unless it
 * names one. A badge's tap with no open alert sends nothing (D5): the service never hears it.
 */
function tap(s: ModelState, d: number, named: string | undefined, config: ModelConfig): void {
  const index =
    named !== undefined
      ? indexOf(s, named)
      : config.taps === 'badge'
        ? badgeTapTarget(s, d)
        : serviceTapTarget(s, d);
  if (index === undefined || index < 0) {
    if (named !== undefined || config.taps === 'badge') return;
    s.taps.push({ device: d, at: s.now, result: 'nothing_pending' });
    s.taken.push('tap-with-nothing-playing');
    return;
  }
  const task = s.tasks[index]!;
  const td = task.devices[d]!;
  // L6, L5, L8 (checked in this order, as the service answers): only an alert playing on the
  // device is acknowledged, once.
  const refused =
    task.endedAt !== null
      ? ({ result: 'ended', why: 'ack-after-end-ignored' } as const)
      : td.status === 'acknowledged'
        ? ({ result: 'duplicate', why: 'duplicate-ack-ignored' } as const)
        : td.status !== 'playing'
          ? ({ result: 'not_playing', why: 'ack-of-queued-refused' } as const)
          : undefined;
  s.taps.push({ device: d, at: s.now, result: refused?.result ?? 'acknowledged', task: task.key });
  if (refused) {
    s.taken.push(refused.why);
    return;
  }
  s.taken.push('acknowledged');
  td.status = 'acknowledged';
  td.nextPlayAt = null;
  task.acks++;
  s.events.push({ type: 'acknowledged', task: task.key, at: s.now, device: config.users[d]! });
  send(s, d, { at: s.now, type: 'stop', task: task.key, cause: 'acknowledged' }, config);
  if (config.texts.onAck) {
    s.taken.push('spoke-on-ack');
    speak(s, d, task, 'on_ack', config.texts.onAck, config);
  }
  release(s, d, task.name, config);
  if (task.acks >= task.quorum) finish(s, task, 'quorum', config);
}

/** L9: the alert playing on the device that was played most recently. */
function serviceTapTarget(s: ModelState, d: number): number | undefined {
  let best: number | undefined;
  s.tasks.forEach((task, i) => {
    const td = task.devices[d]!;
    if (task.endedAt !== null || td.status !== 'playing') return;
    const b = best === undefined ? undefined : s.tasks[best]!.devices[d]!;
    if (
      !b ||
      td.lastPlayAt > b.lastPlayAt ||
      (td.lastPlayAt === b.lastPlayAt && td.playSeq > b.playSeq)
    )
      best = i;
  });
  return best;
}

/** D5: the alert sounding now, else the open alert heard last; nothing offline (D9). */
function badgeTapTarget(s: ModelState, d: number): number | undefined {
  const device = s.devices[d]!;
  if (!device.online) return undefined;
  catchUp(device, s.now);
  const key =
    device.current?.kind === 'alert'
      ? device.current.task
      : device.heardOrder.findLast((k) => device.open.includes(k));
  return key === undefined ? undefined : indexOf(s, key);
}

function indexOf(s: ModelState, key: string): number {
  return s.tasks.findIndex((t) => t.key === key);
}

/**
 * A device is done with an alert of `name`: the oldest of that name queued on it plays at
 * once (L7), unless it times out at this very instant (L1a): its own timeout ends it.
 */
function release(s: ModelState, d: number, name: string, config: ModelConfig): void {
  const same = s.tasks.filter((t) => t.endedAt === null && t.name === name);
  if (same.some((t) => t.devices[d]!.status === 'playing')) return;
  const next = same.find((t) => t.devices[d]!.status === 'queued');
  if (!next) return;
  if (next.createdAt + next.timeoutMs <= s.now) s.taken.push('not-released-at-its-timeout');
  else play(s, next, d, config, 'released');
}

function finish(s: ModelState, task: ModelTask, outcome: Outcome, config: ModelConfig): void {
  task.endedAt = s.now;
  task.outcome = outcome;
  s.taken.push(
    outcome === 'cancelled'
      ? 'cancelled'
      : outcome === 'quorum'
        ? task.acks < task.devices.length
          ? 'quorum-some'
          : 'quorum-all'
        : task.acks > 0
          ? 'timed-out-short-of-quorum'
          : 'timed-out',
  );
  if (outcome === 'timed_out') s.events.push({ type: 'timed_out', task: task.key, at: s.now });
  const speech =
    outcome === 'quorum'
      ? config.texts.onQuorum
      : outcome === 'timed_out'
        ? config.texts.onTimeout
        : undefined;
  task.devices.forEach((td, d) => {
    if (td.status === 'acknowledged') return;
    const wasPlaying = td.status === 'playing';
    td.status = 'stopped';
    td.nextPlayAt = null;
    if (wasPlaying) send(s, d, { at: s.now, type: 'stop', task: task.key, cause: outcome }, config);
    // L10: spoken also where it was still queued; L3: nothing on a cancel.
    if (speech) {
      s.taken.push(outcome === 'quorum' ? 'spoke-on-quorum' : 'spoke-on-timeout');
      if (!wasPlaying) s.taken.push('spoke-where-queued');
      speak(s, d, task, outcome === 'quorum' ? 'on_quorum' : 'on_timeout', speech, config);
    }
    release(s, d, task.name, config);
  });
  s.events.push({
    type: 'end',
    task: task.key,
    at: s.now,
    status: outcome === 'cancelled' ? 'cancelled' : 'normal',
  });
}

function speak(
  s: ModelState,
  d: number,
  task: ModelTask,
  cause: string,
  text: string,
  config: ModelConfig,
): void {
  send(s, d, { at: s.now, type: 'speak', task: task.key, text, cause }, config);
}

/** D3: back online, every alert playing on the device plays again now, in the order posted. */
function comeBack(s: ModelState, d: number, config: ModelConfig): void {
  const device = s.devices[d]!;
  if (device.online) return;
  device.online = true;
  s.links.push({ device: d, at: s.now, online: true });
  for (const task of s.tasks) {
    if (task.endedAt === null && task.devices[d]!.status === 'playing')
      play(s, task, d, config, 'replayed-on-return');
  }
}

/** D2: off the network, a badge hears nothing; what it was playing is cut. */
function drop(s: ModelState, d: number, config: ModelConfig): void {
  const device = s.devices[d]!;
  if (!device.online) return;
  if (config.taps === 'badge') catchUp(device, s.now);
  device.online = false;
  s.links.push({ device: d, at: s.now, online: false });
  if (s.tasks.some((t) => t.endedAt === null && t.devices[d]!.status === 'playing'))
    s.taken.push('dropped-mid-alert');
  device.current = null;
  device.queue = [];
  device.open = [];
  device.heardOrder = [];
}

/** What the service sends: in its transcript always; heard if the badge is online. */
function send(s: ModelState, d: number, sent: Sent, config: ModelConfig): void {
  const device = s.devices[d]!;
  device.sent.push(sent);
  if (!device.online) return;
  if (config.taps === 'service') {
    if (sent.type !== 'stop')
      device.heard.push({
        kind: sent.type === 'play' ? 'alert' : 'speech',
        task: sent.task,
        text: sent.text!,
        at: s.now,
      });
    return;
  }
  catchUp(device, s.now);
  if (sent.type === 'stop') {
    device.open = device.open.filter((k) => k !== sent.task);
    device.heardOrder = device.heardOrder.filter((k) => k !== sent.task);
    device.queue = device.queue.filter((c) => !(c.kind === 'alert' && c.task === sent.task));
    if (device.current?.kind === 'alert' && device.current.task === sent.task) {
      device.current = null;
      startNext(device, s.now);
    }
    return;
  }
  const kind = sent.type === 'play' ? 'alert' : 'speech';
  if (kind === 'alert' && !device.open.includes(sent.task)) device.open.push(sent.task);
  device.queue.push({ kind, task: sent.task, text: sent.text!, ms: config.clipMs(sent.text!) });
  if (!device.current) startNext(device, s.now);
}

/** Plays the next queued clip from `at`, if there is one. */
function startNext(device: ModelDevice, at: number): void {
  const clip = device.queue.shift();
  if (!clip) return;
  device.current = { ...clip, start: at, end: at + clip.ms };
  device.heard.push({ kind: clip.kind, task: clip.task, text: clip.text, at });
  if (clip.kind === 'alert')
    device.heardOrder = [...device.heardOrder.filter((k) => k !== clip.task), clip.task];
}

/** The badge's clips up to `now`: one that ended (at `now` too) makes way for the next. */
function catchUp(device: ModelDevice, now: number): void {
  while (device.current && device.current.end <= now) {
    const end = device.current.end;
    device.current = null;
    startNext(device, end);
  }
}
