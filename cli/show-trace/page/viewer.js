// The trace viewer's page (badge-sim show-trace, TV1–TV4): the lanes of lanes.js, a cursor on
// one record that a click scrubs and the arrow keys step (TV2), and at the cursor every badge's
// and alert's state as foldTrace (input/trace-instant.ts, inlined before this script by
// trace-page.ts) folds the records up to it, with the record itself in full. Filters by badge,
// alert and kind narrow the lanes, the panels and the steps alike.

const DATA = JSON.parse(document.getElementById('trace-data').textContent);
const times = DATA.records.map((record) => micros(record.time));
const model = { records: DATA.records, times, t0: times[0], lanes: buildLanes(DATA), cursor: 0 };
const span = Math.max(1000, times[times.length - 1] - model.t0);
/** What the lanes show, in µs from the first record: all of it, with a margin, to begin with. */
const view = { from: -span * 0.02, to: span * 1.02 };
const filters = { badge: '', alert: '', kind: '' };
const $ = (id) => document.getElementById(id);

const isShown = {
  record(record) {
    const devices = Array.isArray(record.devices) ? record.devices : [record.device];
    if (filters.badge && !devices.includes(filters.badge)) return false;
    if (filters.alert && taskOf(record) !== filters.alert) return false;
    return !filters.kind || record.kind === filters.kind;
  },
  lane(lane) {
    if (filters.badge && lane.kind === 'badge') return lane.id === `badge:${filters.badge}`;
    if (filters.alert && lane.kind === 'alert') return lane.id === `alert:${filters.alert}`;
    return true;
  },
};

/** A device's name as the fixtures give it, with its id. */
const badgeName = (device) => (DATA.names[device] ? `${DATA.names[device]}` : device);
const names = (devices) => (devices ?? []).map(badgeName).join(', ') || '—';
const clipText = (clip) => (clip ? `${clip.kind}: ${clip.text}` : '—');

/** `in 25s` / `25s ago` from a timestamp, at the cursor. */
function fromCursor(time) {
  if (typeof time !== 'string') return '—';
  const us = micros(time) - model.times[model.cursor];
  return us >= 0 ? `in ${offsetText(us).slice(1)}` : `${offsetText(-us).slice(1)} ago`;
}

/** A table row of cells, each `[field, text]`. */
function row(attributes, cells) {
  return el(
    'tr',
    '',
    attributes,
    ...cells.map(([field, text]) => el('td', '', { 'data-field': field }, text)),
  );
}

function renderBadges(instant) {
  const rows = Object.entries(instant.badges)
    .filter(([device]) => !filters.badge || device === filters.badge)
    .map(([device, badge]) =>
      row({ 'data-device': device }, [
        ['name', badgeName(device)],
        ['online', badge.online ? 'online' : 'offline'],
        ['state', badge.state ?? '—'],
        ['clip', clipText(badge.current)],
        ['queue', badge.queue.map(clipText).join('; ') || '—'],
      ]),
    );
  $('badges').replaceChildren(...rows);
}

/** The last `alert` record of `task` at or before the cursor (for fields the fold leaves out). */
function lastAlertRecord(task) {
  for (let i = model.cursor; i >= 0; i--) {
    const record = model.records[i];
    if (record.kind === 'alert' && record.task_id === task) return record;
  }
  return undefined;
}

function renderAlerts(instant) {
  const rows = Object.entries(instant.alerts)
    .filter(([task]) => !filters.alert || task === filters.alert)
    .map(([task, alert]) =>
      row({ 'data-task': task }, [
        ['name', model.lanes.find((lane) => lane.id === `alert:${task}`)?.label ?? task],
        ['state', alert.state],
        ['outcome', alert.outcome ?? '—'],
        ['acknowledgements', `${alert.acknowledgements} of ${alert.quorum}`],
        ['acknowledged', names(alert.acknowledged)],
        ['pending', names(alert.pending)],
        ['next-repeat', fromCursor(lastAlertRecord(task)?.next_repeat_at)],
        ['time-left', fromCursor(alert.timeout_at)],
      ]),
    );
  $('alerts').replaceChildren(...rows);
}

/** Everything that depends on the cursor, the view and the filters. */
function render() {
  const record = model.records[model.cursor];
  const instant = foldTrace(model.records, model.cursor + 1);
  drawLanes($('lanes'), model, view, isShown);
  $('cursor-at').textContent =
    `#${record.seq} ${record.kind} at ${offsetText(model.times[model.cursor] - model.t0)} (${record.time}), record ${model.cursor + 1} of ${model.records.length}`;
  $('cursor-at').dataset.seq = String(record.seq);
  renderBadges(instant);
  renderAlerts(instant);
  $('record').textContent = JSON.stringify(record, null, 2);
}

/** Puts the cursor on record `index`, keeping it in view. */
function moveCursor(index) {
  model.cursor = Math.max(0, Math.min(model.records.length - 1, index));
  const at = model.times[model.cursor] - model.t0;
  if (at < view.from || at > view.to) {
    const width = view.to - view.from;
    view.from = at - width / 2;
    view.to = at + width / 2;
  }
  render();
}

/** The next (`direction` 1) or previous (-1) record the filters show, from the cursor. */
// biome-ignore lint/correctness/noUnusedVariables: controls.js, inlined after it, calls it
function step(direction) {
  for (let i = model.cursor + direction; i >= 0 && i < model.records.length; i += direction)
    if (isShown.record(model.records[i])) return moveCursor(i);
}

/** The last shown record at or before `us` (from the first record), else the first shown. */
// biome-ignore lint/correctness/noUnusedVariables: controls.js, inlined after it, calls it
function scrubTo(us) {
  let found = -1;
  for (let i = 0; i < model.records.length && model.times[i] - model.t0 <= us; i++)
    if (isShown.record(model.records[i])) found = i;
  if (found < 0) found = model.records.findIndex((r) => isShown.record(r));
  if (found >= 0) moveCursor(found);
}

/** Zooms by `factor` (< 1 in) around `at` (µs from the first record). */
// biome-ignore lint/correctness/noUnusedVariables: controls.js, inlined after it, calls it
function zoom(factor, at = (view.from + view.to) / 2) {
  const width = Math.max(10, (view.to - view.from) * factor);
  const share = (at - view.from) / (view.to - view.from);
  view.from = at - width * share;
  view.to = view.from + width;
  render();
}

// biome-ignore lint/correctness/noUnusedVariables: controls.js, inlined after it, calls it
function fitView() {
  view.from = -span * 0.02;
  view.to = span * 1.02;
  render();
}
