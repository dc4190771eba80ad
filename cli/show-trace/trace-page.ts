/**
 * The trace viewer's page (`badge-sim show-trace`, TV1): one HTML file that asks for nothing
 * outside itself (its CSS, scripts and the trace's records inlined), so `--out` can be mailed
 * or attached to a CI run and opened anywhere. At its cursor the page folds the records with
 * `foldTrace` of input/trace-instant.ts, inlined as that function's own text: the page shows
 * exactly the model the reader and the tests hold (TR9), never a second fold.
 */
import { readFileSync } from 'node:fs';
import { emptyInstant, foldRecord, foldTrace } from '../../input/trace-instant.ts';
import { scriptSafeJson } from '../../scenarios/reports/html.reporter.ts';
import type { TracePageData } from './trace-page-data.ts';

const asset = (name: string) => readFileSync(new URL(`./page/${name}`, import.meta.url), 'utf8');

/** The HTML report's colours, font and background (its stylesheet's `:root`): one look. */
function reportColours(): string {
  const css = readFileSync(
    new URL('../../scenarios/reports/html-report/page.css', import.meta.url),
    'utf8',
  );
  return /^:root \{[^}]*\}\n/m.exec(css)?.[0] ?? '';
}

/**
 * `foldTrace` as a script: its source as this process runs it, with the functions it calls
 * declared under the names it calls them by (a bundle may rename them). Run from the sources,
 * tsx keeps function names with esbuild's `__name` helper; the page gives it the helper's meaning.
 */
function foldTraceScript(): string {
  const helpers = [emptyInstant, foldRecord].map((helper) => helper.toString()).join('\n');
  return `const __name = (target) => target;\n${helpers}\nconst foldTrace = ${foldTrace.toString()};\n`;
}

/** The whole page. No text of the trace is written as markup: the page sets it as text. */
export function renderTracePage(data: TracePageData): string {
  const script = [foldTraceScript(), asset('lanes.js'), asset('viewer.js'), asset('controls.js')];
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'">
<title>badge-sim trace</title>
<style>
${reportColours()}${asset('viewer.css')}</style>
</head>
<body>
<header>
<h1 id="title"></h1>
<div id="summary"></div>
</header>
<div class="controls">
<button type="button" id="step-back" title="previous record (←)">◀</button>
<button type="button" id="step-on" title="next record (→)">▶</button>
<button type="button" id="zoom-in" title="zoom in (+)">+</button>
<button type="button" id="zoom-out" title="zoom out (-)">−</button>
<button type="button" id="zoom-fit" title="fit (0)">fit</button>
<label>badge <select id="filter-badge"><option value="">all</option></select></label>
<label>alert <select id="filter-alert"><option value="">all</option></select></label>
<label>kind <select id="filter-kind"><option value="">all</option></select></label>
<span class="keys">← → step · Home End · click to scrub · drag to pan · wheel, + − to zoom · 0 fits</span>
</div>
<div id="failures" hidden></div>
<div class="layout">
<div id="lanes"></div>
<aside>
<div id="cursor-at"></div>
<h2>Badges</h2>
<table><thead><tr><th>badge</th><th>link</th><th>state</th><th>saying or hearing</th><th>queued</th></tr></thead><tbody id="badges"></tbody></table>
<h2>Alerts</h2>
<table><thead><tr><th>alert</th><th>state</th><th>outcome</th><th>acks</th><th>acknowledged</th><th>pending</th><th>next repeat</th><th>times out</th></tr></thead><tbody id="alerts"></tbody></table>
<h2>Record</h2>
<pre id="record"></pre>
</aside>
</div>
<script type="application/json" id="trace-data">${scriptSafeJson(data)}</script>
<script>
${script.join('\n')}</script>
</body>
</html>
`;
}
