// The HTML report's page: draws the run embedded as JSON in #report-data. Plain browser
// JavaScript, inlined into the report by html.reporter.ts, so it needs no bundling and no
// network. Every text of a scenario is set with textContent, never parsed as markup. Each part is
// its own scope, named for what it draws; the last one draws the page.
/** Figures as the page writes them. */
const reportFigures = (() => {
  function wall(ms) {
    return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`;
  }

  return { wall };
})();

// ---- coverage (run --coverage) ----

const reportCoverage = (() => {
  const { el } = reportTimeline;

  /** One share of the coverage, closed: opened, what was missed. */
  function coverageShare(name, part, whole, percent, missing) {
    return el(
      'details',
      'share',
      { 'data-coverage': name },
      el(
        'summary',
        '',
        {},
        el('span', 'what', {}, name),
        el('meter', '', { min: '0', max: String(whole), value: String(part) }),
        el('span', 'figure', {}, `${part}/${whole} (${percent} %)`),
      ),
      missing.length === 0
        ? el('p', 'none', {}, 'nothing missing')
        : el('ul', 'missing', {}, ...missing.map((text) => el('li', '', {}, text))),
    );
  }

  function coverage(c) {
    return el(
      'section',
      'coverage',
      { 'aria-label': 'Coverage' },
      el('h2', '', {}, 'Coverage'),
      coverageShare(
        'badge machine',
        c.badge_machine.exercised,
        c.badge_machine.transitions,
        c.badge_machine.percent,
        c.badge_machine.missing,
      ),
      coverageShare(
        'alert model',
        c.alert_model.exercised,
        c.alert_model.transitions,
        c.alert_model.percent,
        c.alert_model.missing,
      ),
      coverageShare(
        'decision rows',
        c.decisions.touched,
        c.decisions.rows,
        c.decisions.percent,
        c.decisions.missing.map((row) => `${row.id}: ${row.case}`),
      ),
    );
  }

  return { coverage };
})();

// ---- filters ----

const reportFilters = (() => {
  const { el } = reportTimeline;

  function filters(items) {
    const bar = el('div', 'filters', { role: 'search' });
    const search = el('input', '', {
      type: 'search',
      placeholder: 'Filter by name or file',
      'aria-label': 'Filter by name or file',
    });
    let shown = 'all';
    const buttons = ['all', 'failed', 'passed'].map((which) => {
      const button = el('button', '', { type: 'button', 'data-filter': which }, which);
      button.addEventListener('click', () => {
        shown = which;
        apply();
      });
      return button;
    });
    function apply() {
      const words = search.value.trim().toLowerCase();
      for (const button of buttons)
        button.setAttribute('aria-pressed', String(button.dataset.filter === shown));
      for (const { item, passed, text } of items) {
        const status = shown === 'all' || (shown === 'passed') === passed;
        item.hidden = !(status && (!words || text.includes(words)));
      }
    }
    search.addEventListener('input', apply);
    bar.append(el('span', '', {}, 'Show'), ...buttons, search);
    apply();
    return bar;
  }

  return { filters };
})();

// ---- expected and actual side by side ----

const reportFailures = (() => {
  const { el } = reportTimeline;

  function sideBySide(failure) {
    const section = el(
      'section',
      'failure',
      {},
      el('h4', '', {}, `${failure.what}: ${failure.message}`),
    );
    if (failure.expected.length === 0 && failure.actual.length === 0) return section;
    const rows = Math.max(failure.expected.length, failure.actual.length);
    const table = el(
      'table',
      'side-by-side',
      {},
      el(
        'thead',
        '',
        {},
        el(
          'tr',
          '',
          {},
          el('th', 'mark', {}, ''),
          el('th', '', {}, 'expected'),
          el('th', '', {}, 'actual'),
        ),
      ),
    );
    const body = el('tbody');
    for (let i = 0; i < rows; i++) {
      const first = i === failure.firstDifference;
      const expected = failure.expected[i] ?? (i < failure.expected.length ? '' : '—');
      const row = el(
        'tr',
        first ? 'first-difference' : '',
        first ? { 'aria-label': 'first difference' } : {},
        el('td', 'mark', {}, first ? '▶' : ''),
        el('td', '', {}, expected),
        el('td', '', {}, failure.actual[i] ?? '—'),
      );
      body.append(row);
    }
    table.append(body);
    section.append(table);
    return section;
  }

  return { sideBySide };
})();

// ---- the list: a row a scenario, drawn when opened ----

const reportScenarios = (() => {
  const { el, timeline, placeLabels } = reportTimeline;
  const { wall } = reportFigures;
  const { sideBySide } = reportFailures;

  function scenarioItem(scenario, open) {
    const item = el('li', scenario.passed ? 'passed' : 'failed');
    const details = el('details');
    const head = el(
      'summary',
      '',
      {},
      el(
        'span',
        'mark',
        { 'aria-label': scenario.passed ? 'passed' : 'failed' },
        scenario.passed ? '✓' : '✗',
      ),
      el('span', 'name', {}, scenario.name),
      el('span', 'source', {}, scenario.source),
      el('span', 'ms', {}, wall(scenario.wallMs)),
    );
    details.append(head);
    let drawn = false;
    details.addEventListener('toggle', () => {
      if (!details.open || drawn) return;
      drawn = true;
      const body = scenarioBody(scenario);
      details.append(body);
      // Labels are laid out by their drawn widths: now, and again when the page's width changes.
      const timelineEl = body.querySelector('.timeline');
      placeLabels(timelineEl);
      addEventListener('resize', () => placeLabels(timelineEl));
    });
    details.open = open;
    item.append(details);
    return item;
  }

  function loadErrorItem(error, open) {
    const details = el(
      'details',
      '',
      {},
      el('summary', '', {}, el('span', 'mark', {}, '✗'), el('span', 'name', {}, error.source)),
      el('div', 'body', {}, el('p', '', {}, 'could not load: ', el('code', '', {}, error.message))),
    );
    details.open = open;
    return el('li', 'failed', {}, details);
  }

  /** A link as its file is named: its escapes read back (as written, if they do not read). */
  function readableLink(link) {
    try {
      return decodeURIComponent(link);
    } catch {
      return link;
    }
  }

  function scenarioBody(scenario) {
    const body = el('div', 'body');
    body.append(el('p', 'proves', {}, el('b', '', {}, 'proves: '), scenario.proves));
    if (scenario.notes.length > 0)
      body.append(el('ul', 'notes', {}, ...scenario.notes.map((note) => el('li', '', {}, note))));
    body.append(timeline(scenario));
    for (const failure of scenario.failures) body.append(sideBySide(failure));
    body.append(
      el(
        'p',
        'rerun',
        {},
        `seed ${scenario.seed}; run it again: `,
        el('code', '', {}, scenario.rerun),
      ),
    );
    // A relative link only: a merged shard's data must not make it point anywhere else.
    if (typeof scenario.trace === 'string' && !/^[a-z][a-z0-9+.-]*:|^[/\\]/i.test(scenario.trace))
      body.append(
        el(
          'p',
          'trace',
          {},
          'trace: ',
          el('a', '', { href: scenario.trace, download: '' }, readableLink(scenario.trace)),
        ),
      );
    return body;
  }

  return { scenarioItem, loadErrorItem };
})();

// ---- the page: the summary, the coverage, the filters and the list ----

(() => {
  /** At most this many scenarios, the failing ones start open; more, all start closed. */
  const OPEN_FAILING_UP_TO = 20;
  const data = JSON.parse(document.getElementById('report-data').textContent);
  const root = document.getElementById('report');
  const { el } = reportTimeline;
  const { wall } = reportFigures;
  const { scenarioItem, loadErrorItem } = reportScenarios;
  const { coverage } = reportCoverage;
  const { filters } = reportFilters;

  function summary() {
    const total = data.scenarios.length + data.loadErrors.length;
    return el(
      'section',
      'summary',
      { 'aria-label': 'Summary' },
      el('h1', '', {}, 'badge-sim report'),
      el('span', 'count passed', { 'data-count': 'passed' }, `${data.passed} passed`),
      el('span', 'count failed', { 'data-count': 'failed' }, `${data.failed} failed`),
      el('span', 'total', {}, `${total} scenarios in ${wall(data.wallMs)}`),
    );
  }

  const ordered = [...data.scenarios].sort((a, b) => Number(a.passed) - Number(b.passed));
  const openFailing = data.scenarios.length + data.loadErrors.length <= OPEN_FAILING_UP_TO;
  const list = el('ol', 'scenarios');
  const items = [];
  for (const error of data.loadErrors) {
    const item = loadErrorItem(error, openFailing);
    items.push({ item, passed: false, text: error.source.toLowerCase() });
    list.append(item);
  }
  for (const scenario of ordered) {
    const item = scenarioItem(scenario, openFailing && !scenario.passed);
    items.push({
      item,
      passed: scenario.passed,
      text: `${scenario.name} ${scenario.source}`.toLowerCase(),
    });
    list.append(item);
  }
  root.append(summary());
  if (data.coverage) root.append(coverage(data.coverage));
  root.append(filters(items), list);
  document.documentElement.dataset.rendered = 'true';
  // When the page was first drawn, for `npm run bench:report`.
  performance.mark('report-rendered');
})();
