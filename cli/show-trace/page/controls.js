// The trace viewer's controls (TV2, TV3): the filters, the keys (arrows step from record to
// record, Home and End, + and - zoom, 0 fits), the mouse on the lanes (a click scrubs or picks
// a mark, a drag pans, the wheel zooms) and a failed scenario's expected and actual events.
// Inlined last, after lanes.js and viewer.js: it starts the page.

/** The time (µs from the first record) under `clientX` on the lanes. */
function timeAt(clientX) {
  const rect = document.querySelector('#lanes .track').getBoundingClientRect();
  return view.from + ((clientX - rect.left) / rect.width) * (view.to - view.from);
}

function setUpFilters() {
  const options = (select, entries) =>
    select.append(...entries.map(([value, label]) => el('option', '', { value }, label)));
  const badges = model.lanes.filter((lane) => lane.kind === 'badge');
  options(
    $('filter-badge'),
    badges.map((lane) => [lane.id.slice(6), lane.label]),
  );
  const alerts = model.lanes.filter((lane) => lane.kind === 'alert');
  options(
    $('filter-alert'),
    alerts.map((lane) => [lane.id.slice(6), lane.label]),
  );
  const kinds = [...new Set(model.records.map((record) => record.kind))].sort();
  options(
    $('filter-kind'),
    kinds.map((kind) => [kind, kind]),
  );
  for (const name of ['badge', 'alert', 'kind'])
    $(`filter-${name}`).addEventListener('change', (event) => {
      filters[name] = event.target.value;
      render();
    });
}

const KEYS = {
  ArrowRight: () => step(1),
  ArrowLeft: () => step(-1),
  Home: () => scrubTo(Number.NEGATIVE_INFINITY),
  End: () => scrubTo(Number.POSITIVE_INFINITY),
  '+': () => zoom(0.5),
  '=': () => zoom(0.5),
  '-': () => zoom(2),
  0: () => fitView(),
};

function setUpKeys() {
  document.addEventListener('keydown', (event) => {
    if (event.target instanceof HTMLSelectElement || event.ctrlKey || event.metaKey) return;
    const action = KEYS[event.key];
    if (!action) return;
    event.preventDefault();
    action();
  });
  $('zoom-in').addEventListener('click', () => zoom(0.5));
  $('zoom-out').addEventListener('click', () => zoom(2));
  $('zoom-fit').addEventListener('click', () => fitView());
  $('step-back').addEventListener('click', () => step(-1));
  $('step-on').addEventListener('click', () => step(1));
}

/** A click scrubs (or picks the mark clicked), a drag pans, the wheel zooms around the pointer. */
function setUpMouse() {
  const lanes = $('lanes');
  let drag;
  lanes.addEventListener('pointerdown', (event) => {
    drag = { x: event.clientX, from: view.from, to: view.to, moved: false };
  });
  lanes.addEventListener('pointermove', (event) => {
    if (!drag || Math.abs(event.clientX - drag.x) < 4) return;
    const shift = timeAt(drag.x) - timeAt(event.clientX);
    Object.assign(drag, { moved: true });
    Object.assign(view, { from: view.from + shift, to: view.to + shift });
    drag.x = event.clientX;
    render();
  });
  lanes.addEventListener('pointerup', (event) => {
    const clicked = drag && !drag.moved;
    drag = undefined;
    if (!clicked || !document.querySelector('#lanes .track')) return;
    const mark = event.target.closest('.mark');
    if (mark) moveCursor(Number(mark.dataset.index));
    else scrubTo(timeAt(event.clientX));
  });
  lanes.addEventListener(
    'wheel',
    (event) => {
      if (!document.querySelector('#lanes .track')) return;
      event.preventDefault();
      zoom(event.deltaY > 0 ? 1.25 : 0.8, timeAt(event.clientX));
    },
    { passive: false },
  );
}

/** A failed scenario: each failure's expected and actual events, the first difference marked. */
function renderFailures() {
  if (DATA.failures.length === 0) return;
  const list = (title, lines, marked) =>
    el(
      'div',
      'side',
      {},
      el('h3', '', {}, title),
      el(
        'ol',
        '',
        {},
        ...lines.map((line, i) => el('li', i === marked ? 'difference' : '', {}, line)),
      ),
    );
  const parts = DATA.failures.map((failure) => {
    const go = el('button', 'go', { type: 'button' }, 'cursor to the first difference');
    const index = model.records.findIndex((record) => record.seq === failure.cursor_seq);
    go.addEventListener('click', () => moveCursor(index));
    const marked = failure.first_difference ?? -1;
    return el(
      'section',
      'failure',
      {},
      el('h2', '', {}, `✗ ${failure.what}`),
      el('p', '', {}, failure.message),
      go,
      el(
        'div',
        'sides',
        {},
        list('expected', failure.expected, marked),
        list('actual', failure.actual, marked),
      ),
    );
  });
  $('failures').replaceChildren(...parts);
  $('failures').hidden = false;
}

/** Starts the page: on the first failure's first difference (TV3), else on the first record. */
function start() {
  $('title').textContent = DATA.header?.scenario ?? DATA.file;
  const verdict = DATA.records.findLast((record) => record.kind === 'verdict');
  $('summary').textContent =
    `${DATA.source === 'recording' ? 'session recording' : `trace (${DATA.header.source})`} · ${DATA.records.length} records over ${offsetText(span).slice(1)}${verdict ? (verdict.passed ? ' · passed' : ' · failed') : ''}`;
  setUpFilters();
  setUpKeys();
  setUpMouse();
  renderFailures();
  const first = DATA.failures[0];
  const index = first ? model.records.findIndex((record) => record.seq === first.cursor_seq) : 0;
  moveCursor(Math.max(0, index));
}

start();
