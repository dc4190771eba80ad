// The HTML report's swimlane timeline: a scenario's badges' lanes, its alerts' labels laid out
// by their drawn widths, the first difference, on an axis that fits what happened (UI16). Plain
// browser JavaScript, inlined by html.reporter.ts in the same script as page.js, before it:
// page.js reads these functions from `reportTimeline`. Every text is set as text. Each part
// is its own scope, named for what it draws, and hands on only what the next parts use.
/** Elements and the words of a duration, for every part of the report. */
const reportDom = (() => {
  /** An element with a class, attributes and children (strings become text nodes). */
  function el(tag, className, attributes, ...children) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    for (const [name, value] of Object.entries(attributes ?? {})) node.setAttribute(name, value);
    for (const child of children) {
      if (child === undefined || child === null) continue;
      node.append(typeof child === 'string' ? document.createTextNode(child) : child);
    }
    return node;
  }

  /** `1500ms`, `2.5s`, `140s` (as failures write them, up to 10 min), then `12m`, `2h30m`, `7d`. */
  function seconds(ms) {
    if (ms < 1000 && ms !== 0) return `${ms}ms`;
    const s = ms / 1000;
    if (s <= 600) return `${Number.isInteger(s) ? s : s.toFixed(3).replace(/0+$/, '')}s`;
    const units = [
      ['d', 86400],
      ['h', 3600],
      ['m', 60],
      ['s', 1],
    ];
    let rest = Math.round(s);
    let text = '';
    for (const [unit, size] of units) {
      const amount = Math.floor(rest / size);
      rest -= amount * size;
      if (amount > 0) text += `${amount}${unit}`;
    }
    return text;
  }

  return { el, seconds };
})();

/** The span the timeline shows, from what a scenario drew. */
const reportSpan = (() => {
  /**
   * The instant of the last thing drawn (ms): a clip's end, a tap, a badge going offline or
   * back, an alert marker, the first difference. An offline window still open at the run's end
   * ends nothing.
   */
  function lastDrawn(scenario) {
    let last = 0;
    for (const lane of scenario.lanes) {
      for (const clip of lane.clips) last = Math.max(last, clip.at + clip.durationMs);
      for (const at of lane.taps) last = Math.max(last, at);
      for (const window of lane.offline)
        last = Math.max(last, window.to < scenario.endMs ? window.to : window.from);
    }
    for (const marker of scenario.markers) last = Math.max(last, marker.at);
    for (const failure of scenario.failures)
      for (const at of Object.values(failure.differenceAt ?? {})) last = Math.max(last, at);
    return last;
  }

  /**
   * The span the timeline shows (ms): shortly after the last thing drawn, on a round tick, so a
   * run of 400 s whose alerts are over in 40 s is drawn over 50 s, not squeezed into a tenth.
   */
  function spanOf(scenario) {
    const padded = Math.max(1000, lastDrawn(scenario) * 1.05);
    const step = tickStep(padded);
    return Math.ceil(padded / step) * step;
  }

  /** A round step giving at most about 8 ticks. */
  function tickStep(span) {
    const steps = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 1800, 3600, 7200, 21600, 86400];
    return (steps.find((s) => span / 1000 / s <= 8) ?? 86400) * 1000;
  }

  return { lastDrawn, spanOf, tickStep };
})();

/** The alerts' lane: a label a marker and the first difference, their rows by drawn width. */
const reportMarkers = (() => {
  const { el, seconds } = reportDom;

  /** Pixels kept between two labels of one row. */
  const LABEL_GAP_PX = 6;
  const LABEL_ROW_REM = 1.45;

  function markerTrack(scenario, firstDiff, x) {
    const track = el('div', 'markers track');
    // With several alerts, each label says whose it is.
    const several = new Set(scenario.markers.map((m) => m.task)).size > 1;
    const labels = scenario.markers.map((marker) => ({
      at: marker.at,
      kind: marker.kind,
      text: several ? `${marker.task}: ${marker.label}` : marker.label,
      title: `${marker.label} · ${marker.task} · ${seconds(marker.at)}`,
    }));
    if (firstDiff) {
      const { expected, actual } = firstDiff.differenceAt;
      const at = actual ?? expected;
      labels.push({
        at,
        kind: 'difference',
        text: 'first difference',
        title: diffTitle(firstDiff),
      });
    }
    // In time order, the difference first at its instant, so each row's last label is the nearest.
    labels.sort(
      (a, b) => a.at - b.at || Number(b.kind === 'difference') - Number(a.kind === 'difference'),
    );
    // Rows are given once the labels can be measured (placeLabels).
    for (const label of labels) {
      const attributes = {
        style: `left:${x(label.at)}`,
        title: label.title,
        'data-kind': label.kind,
      };
      track.append(el('span', `marker ${label.kind}`, attributes, label.text));
    }
    return track;
  }

  function diffTitle(failure) {
    const { expected, actual } = failure.differenceAt;
    const parts = [`${failure.what}: ${failure.message}`];
    if (expected !== undefined) parts.push(`expected at ${seconds(expected)}`);
    if (actual !== undefined) parts.push(`happened at ${seconds(actual)}`);
    return parts.join('; ');
  }

  /**
   * Gives each label of the alerts' lane a row by its drawn width, in time order: the first row
   * where it touches no other label; near the right edge it extends leftwards from its instant.
   * The lines across the lanes start below this lane, so none cuts through a label.
   */
  function placeLabels(timelineEl) {
    const track = timelineEl.querySelector('.markers.track');
    const width = track.clientWidth;
    const rows = [];
    for (const label of track.querySelectorAll('.marker')) {
      const at = (Number.parseFloat(label.style.left) / 100) * width;
      const w = label.offsetWidth;
      const leftwards = at + w > width;
      label.classList.toggle('leftwards', leftwards);
      const from = leftwards ? at - w : at;
      const to = from + w;
      const free = (row) =>
        row.every(([a, b]) => to + LABEL_GAP_PX <= a || from >= b + LABEL_GAP_PX);
      let r = rows.findIndex(free);
      if (r === -1) r = rows.push([]) - 1;
      rows[r].push([from, to]);
      label.style.top = `${(0.25 + r * LABEL_ROW_REM).toFixed(2)}rem`;
    }
    track.style.minHeight = `${(Math.max(1, rows.length) * LABEL_ROW_REM + 0.35).toFixed(2)}rem`;
    const lane = track.parentElement;
    timelineEl.querySelector('.overlay').style.top = `${lane.offsetTop + lane.offsetHeight}px`;
    timelineEl.dataset.placed = 'true';
  }

  return { markerTrack, placeLabels };
})();

/** A badge's lane (its clips, taps and offline windows) and the lines across every lane. */
const reportLanes = (() => {
  const { el, seconds } = reportDom;

  function laneTrack(lane, onDiff, x, span) {
    const track = el('div', `track${onDiff ? ' diff-lane' : ''}`, { 'data-lane': lane.device });
    for (const window of lane.offline)
      track.append(
        mark(
          'offline',
          `left:${x(window.from)};width:${x(Math.min(window.to, span) - window.from)}`,
          `offline ${seconds(window.from)}–${seconds(window.to)}`,
        ),
      );
    for (const clip of lane.clips) track.append(clipElement(clip, x));
    for (const at of lane.taps) track.append(mark('tap', `left:${x(at)}`, `tap at ${seconds(at)}`));
    return track;
  }

  /** A drawn thing on a lane: its words show on hover and are what a screen reader says. */
  function mark(className, style, words) {
    return el('span', className, { style, title: words, role: 'img', 'aria-label': words });
  }

  function clipElement(clip, x) {
    const repeat = clip.kind === 'alert' && clip.repeat > 0;
    const kind = repeat ? 'alert repeat' : clip.kind;
    const what = clip.kind === 'alert' ? (repeat ? `repeat ${clip.repeat}` : 'alert') : clip.kind;
    const title = `${what} at ${seconds(clip.at)} (${seconds(clip.durationMs)}${clip.cut ? ', cut short' : ''}): “${clip.text}”${clip.task ? ` · ${clip.task}` : ''}${clip.cause ? ` · ${clip.cause}` : ''}`;
    return mark(
      `clip ${kind}${clip.cut ? ' cut' : ''}`,
      `left:${x(clip.at)};width:${x(clip.durationMs)}`,
      title,
    );
  }

  /** Lines across every lane: each alert marker, and the first difference. */
  function overlay(scenario, firstDiff, x) {
    const layer = el('div', 'overlay', { 'aria-hidden': 'true' });
    for (const marker of scenario.markers)
      layer.append(el('span', `guide ${marker.kind}`, { style: `left:${x(marker.at)}` }));
    if (firstDiff) {
      const { expected, actual } = firstDiff.differenceAt;
      if (expected !== undefined && expected !== actual)
        layer.append(
          el('span', 'guide diff expected', {
            style: `left:${x(expected)}`,
            'data-diff': 'expected',
          }),
        );
      if (actual !== undefined)
        layer.append(
          el('span', 'guide diff actual', { style: `left:${x(actual)}`, 'data-diff': 'actual' }),
        );
    }
    return layer;
  }

  return { laneTrack, overlay };
})();

// ---- the swimlane timeline ----

// biome-ignore lint/correctness/noUnusedVariables: page.js, inlined after it, reads it
const reportTimeline = (() => {
  const { el, seconds } = reportDom;
  const { lastDrawn, spanOf, tickStep } = reportSpan;
  const { markerTrack, placeLabels } = reportMarkers;
  const { laneTrack, overlay } = reportLanes;

  function timeline(scenario) {
    const span = spanOf(scenario);
    const x = (ms) => `${((Math.min(span, Math.max(0, ms)) / span) * 100).toFixed(3)}%`;
    const firstDiff = scenario.failures.find((f) => f.differenceAt);
    const rows = el('div', 'timeline', { role: 'group', 'aria-label': 'Timeline' });
    const row = (who, track) => rows.append(el('div', 'row', {}, who, track));
    const axis = el('div', 'axis track');
    for (let t = 0; t <= span; t += tickStep(span))
      axis.append(el('span', 'tick', { style: `left:${x(t)}` }, seconds(t)));
    row(el('div', 'who', {}, 'time'), axis);
    row(el('div', 'who', {}, 'alerts'), markerTrack(scenario, firstDiff, x));
    for (const lane of scenario.lanes) {
      const onDiff = firstDiff?.lane === lane.device;
      const who = el(
        'div',
        `who${onDiff ? ' diff-lane' : ''}`,
        { title: `${lane.user} (${lane.device})` },
        lane.user,
        el('small', '', {}, lane.device),
      );
      row(who, laneTrack(lane, onDiff, x, span));
    }
    if (scenario.lanes.length === 0)
      row(el('div', 'who'), el('div', 'track empty', {}, 'no badges in this scenario'));
    rows.append(overlay(scenario, firstDiff, x));
    const quiet =
      scenario.endMs > span
        ? el(
            'p',
            'quiet-end',
            {},
            `nothing after ${seconds(lastDrawn(scenario))}; the run went on to ${seconds(scenario.endMs)}`,
          )
        : null;
    // On a narrow screen the timeline keeps a readable width and scrolls sideways.
    return el('div', '', {}, legend(Boolean(firstDiff)), el('div', 'scroller', {}, rows), quiet);
  }

  function legend(withDifference) {
    const entries = [
      ['alert play', 'var(--alert)'],
      ['repeat', 'var(--repeat)'],
      ['broadcast', 'var(--broadcast)'],
      ['speech', 'var(--speech)'],
      ['tap', 'var(--tap)'],
      ['offline', 'var(--offline)'],
    ];
    if (withDifference) entries.push(['first difference', 'var(--diff)']);
    return el(
      'div',
      'legend',
      { 'aria-hidden': 'true' },
      ...entries.map(([label, colour]) => el('span', '', { style: `--swatch:${colour}` }, label)),
    );
  }

  return { el, timeline, placeLabels };
})();
