/**
 * `npm run bench:repro`: how long `badge-sim repro` takes on an export of 10,000 events (2,000
 * alerts, each acknowledged by three badges), from reading to the comparison, embedded on the
 * virtual clock; and `repro --search` on the same export (the three tap rules, since the
 * defaults already match). Markdown on stdout.
 */
import { reproduce } from '../scenarios/field-bugs/repro/reproduce.ts';
import { searchAlternatives } from '../scenarios/field-bugs/repro/search.ts';

const ALERTS = 2_000;
const TASK_TYPE = { major: 1, minor: 4, name: 'alerts', namespace: 'system' };
const START = Date.UTC(2026, 0, 1);
const iso = (ms: number) => new Date(ms).toISOString().replace('Z', '000Z');

/** An alert a minute, 50 names, acknowledged by Ada, Ben and Cy 5, 10 and 15 s in. */
function exportOf(alerts: number): string {
  const events = [];
  for (let i = 0; i < alerts; i++) {
    const task = { id: `task${i}`, name: `alert-${i % 50}`, task_type: TASK_TYPE };
    const at = START + i * 60_000;
    const event = (suffix: string, ms: number, content: object) => ({
      category: 'tasks',
      content,
      task,
      event_id: `e${i}${suffix}`,
      timestamp: iso(ms),
    });
    events.push(event('s', at, { type: 'start' }));
    ['Ada', 'Ben', 'Cy'].forEach((device, k) => {
      events.push(event(`a${k}`, at + 5_000 * (k + 1), { type: 'acknowledged', device }));
    });
    events.push(event('e', at + 15_000, { type: 'end', status: 'normal' }));
  }
  return JSON.stringify(events);
}

const text = exportOf(ALERTS);
const stages: string[] = [];
const started = performance.now();
const stage = (line: string) =>
  stages.push(`| ${line} | ${((performance.now() - started) / 1000).toFixed(2)} s |`);
const result = await reproduce({ exports: [{ file: 'bench.json', text }], progress: stage });
const total = (performance.now() - started) / 1000;
if (!result.comparison.match)
  throw new Error(`the histories differ: ${result.comparison.difference?.sentence}`);

const searchStarted = performance.now();
const search = await searchAlternatives({ exports: [{ file: 'bench.json', text }] });
const searchTotal = (performance.now() - searchStarted) / 1000;

console.log(`## bench:repro

- node ${process.version}; ${result.eventCount} events (${ALERTS} alerts, 3 badges), embedded on the virtual clock

| stage begun | after |
|---|---:|
${stages.join('\n')}
| compared: the histories match | ${total.toFixed(2)} s |

\`repro --search\` on the same export: ${search.trials.length} variants run, ${search.explanations.length} explain the log, in ${searchTotal.toFixed(2)} s (${(searchTotal / search.trials.length).toFixed(2)} s a variant, against ${total.toFixed(2)} s for the one run above).

Goal: under 30 s for 10,000 events ${total < 30 ? '**PASS**' : '**FAIL**'}.`);
