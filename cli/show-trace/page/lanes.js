// The trace viewer's lanes (badge-sim show-trace, TV1): a lane per badge and per alert, one for
// the scenario's steps and verdict, one for the service's requests and clock, and an "other"
// lane for the kinds this viewer does not know (a newer writer's: TV4), each record a mark on
// one time axis that zooms and pans. Plain browser JavaScript, inlined by trace-page.ts before
// viewer.js, in one script. Every text is set as text.

/** The kinds drawn on the service's lane; a kind in no list goes to the "other" lane. */
const SERVICE_KINDS = ['session', 'request', 'clock', 'capped', 'end'];
const BADGE_KINDS = ['connect', 'close', 'tap', 'battery', 'transition'];

/** An element with a class, attributes and children (strings become text nodes). */
function el(tag, className, attributes, ...children) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  for (const [name, value] of Object.entries(attributes ?? {})) node.setAttribute(name, value);
  for (const child of children)
    if (child !== undefined && child !== null)
      node.append(typeof child === 'string' ? document.createTextNode(child) : child);
  return node;
}

/** A trace timestamp (`2026-01-01T00:00:01.340000Z`) in whole µs since the epoch. */
function micros(time) {
  const parts = /^(.*T\d\d:\d\d:\d\d)(?:\.(\d+))?Z$/.exec(time);
  if (!parts) return 0;
  return Date.parse(`${parts[1]}Z`) * 1000 + Number((parts[2] ?? '').padEnd(6, '0').slice(0, 6));
}

/** `+1m30.5s` from µs. */
function offsetText(us) {
  const ms = Math.round(us / 1000);
  const minutes = Math.floor(ms / 60000);
  const seconds = (ms % 60000) / 1000;
  return `+${minutes ? `${minutes}m` : ''}${seconds}s`;
}

/** The task a record is about, if any: an alert's, a command's, a tap's or an event's. */
function taskOf(record) {
  if (typeof record.task_id === 'string') return record.task_id;
  const task = record.event?.task;
  return typeof task?.id === 'string' ? task.id : undefined;
}

/** The id of the lane `record` is drawn on. */
function laneIdOf(record) {
  const task = taskOf(record);
  if (record.kind === 'alert' || record.kind === 'event' || record.kind === 'command')
    return task ? `alert:${task}` : 'service';
  if (BADGE_KINDS.includes(record.kind) && typeof record.device === 'string')
    return `badge:${record.device}`;
  if (record.kind === 'step' || record.kind === 'verdict') return 'scenario';
  if (SERVICE_KINDS.includes(record.kind)) return 'service';
  return 'other';
}

/** The lanes of a trace, badges first, then alerts, then the rest; each with its records' indexes. */
// biome-ignore lint/correctness/noUnusedVariables: viewer.js, inlined after it, calls it
function buildLanes(data) {
  const lanes = new Map();
  const lane = (id, label, kind) => {
    if (!lanes.has(id)) lanes.set(id, { id, label, kind, indexes: [], bars: [] });
    return lanes.get(id);
  };
  data.records.forEach((record, index) => {
    const id = laneIdOf(record);
    const [kind, key] = id.includes(':') ? id.split(/:(.*)/) : [id, id];
    const label =
      kind === 'badge' ? `${data.names[key] ?? key} (${key})` : kind === 'alert' ? key : kind;
    const into = lane(id, label, kind);
    into.indexes.push(index);
    // An alert's lane is named by what it says, as its first play command gives it.
    if (kind === 'alert' && into.label === key && typeof record.text === 'string')
      into.label = `${record.text} (${key.slice(0, 8)})`;
  });
  addClipBars(data.records, lanes);
  const order = { badge: 0, alert: 1, scenario: 2, service: 3, other: 4 };
  return [...lanes.values()].sort((a, b) => order[a.kind] - order[b.kind]);
}

/** On each badge's lane, a bar while it plays or says a clip (as its transitions name it). */
function addClipBars(records, lanes) {
  const open = new Map();
  for (const record of records) {
    if (record.kind !== 'transition' || typeof record.device !== 'string') continue;
    const lane = lanes.get(`badge:${record.device}`);
    const playing = open.get(record.device);
    const clip = record.current;
    if (playing && (!clip || clip.text !== playing.clip.text || clip.task !== playing.clip.task)) {
      lane.bars.push({ ...playing, to: micros(record.time) });
      open.delete(record.device);
    }
    if (clip && !open.has(record.device))
      open.set(record.device, { clip, from: micros(record.time) });
  }
  for (const [device, playing] of open)
    lanes.get(`badge:${device}`).bars.push({ ...playing, to: undefined });
}

/** A round step for about 8 ticks over `span` µs. */
function tickStep(span) {
  const steps = [0.001, 0.01, 0.1, 0.5, 1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 1800, 3600];
  return (steps.find((s) => span / 1e6 / s <= 8) ?? 7200) * 1e6;
}

/** The axis and every lane for the view `[view.from, view.to]` (µs from the trace's first record). */
// biome-ignore lint/correctness/noUnusedVariables: viewer.js, inlined after it, calls it
function drawLanes(container, model, view, isShown) {
  const x = (us) => `${(((us - model.t0 - view.from) / (view.to - view.from)) * 100).toFixed(3)}%`;
  const axis = el('div', 'axis');
  const step = tickStep(view.to - view.from);
  for (let t = Math.ceil(view.from / step) * step, n = 0; t <= view.to && n < 50; t += step, n++)
    axis.append(el('span', 'tick', { style: `left:${x(model.t0 + t)}` }, offsetText(t)));
  container.replaceChildren(el('div', 'lane-label'), axis);
  for (const lane of model.lanes) {
    if (!isShown.lane(lane)) continue;
    const track = el('div', 'track', { 'data-lane': lane.id });
    for (const bar of lane.bars) {
      const to = bar.to ?? model.t0 + view.to;
      track.append(
        el('span', `bar ${bar.clip.kind}`, {
          style: `left:${x(bar.from)};width:calc(${x(to)} - ${x(bar.from)})`,
          title: `${bar.clip.kind}: ${bar.clip.text}`,
        }),
      );
    }
    for (const index of lane.indexes) {
      const record = model.records[index];
      // Only what the view shows is drawn: a step in a long trace redraws a few marks, not all.
      const at = model.times[index] - model.t0;
      if (at < view.from || at > view.to || !isShown.record(record)) continue;
      const attributes = { style: `left:${x(model.times[index])}`, 'data-index': String(index) };
      attributes['data-kind'] = record.kind;
      attributes.title = `#${record.seq} ${record.kind}`;
      track.append(el('span', 'mark', attributes));
    }
    // The cursor: a line across every track at the instant of the record it is on.
    track.append(el('span', 'cursor-line', { style: `left:${x(model.times[model.cursor])}` }));
    container.append(
      el('div', `lane-label ${lane.kind}`, { title: lane.label }, lane.label),
      track,
    );
  }
}
