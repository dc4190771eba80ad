/**
 * The rows of docs/decisions.md, by id, as an installed badge-sim knows them: the docs are not
 * shipped, so `npm run schema` writes `decision-rows.generated.ts` from the file and a test
 * checks it is current. A scenario names the rows it exercises (`decisions:`), and
 * `run --coverage` reports the rows no scenario of the run touched (decision CV3).
 */
import { DECISION_ROWS } from './decision-rows.generated.ts';

export interface DecisionRow {
  id: string;
  /** The row's Case, shortened to a line. */
  case: string;
}

/** A row's id: capitals, a number, maybe a letter (`L1a`). */
const DECISION_ID = /^[A-Z]+[0-9]+[a-z]?$/;
const CASE_MAX = 80;

/** Every row of a decisions file: `| ID | Case | …` lines, in order. */
export function parseDecisionRows(markdown: string): DecisionRow[] {
  const rows: DecisionRow[] = [];
  for (const line of markdown.split('\n')) {
    const cells = line.split('|').map((c) => c.trim());
    if (cells.length < 4 || cells[0] !== '' || !DECISION_ID.test(cells[1]!)) continue;
    rows.push({ id: cells[1]!, case: shorten(cells[2]!) });
  }
  return rows;
}

function shorten(text: string): string {
  const plain = text.replace(/\*\*|`/g, '').replace(/\s+/g, ' ');
  return plain.length <= CASE_MAX ? plain : `${plain.slice(0, CASE_MAX - 1).trimEnd()}…`;
}

const byId = new Map<string, DecisionRow>(DECISION_ROWS.map((row) => [row.id, row]));

/** Every decision row badge-sim was built with. */
export function decisionRows(): readonly DecisionRow[] {
  return DECISION_ROWS;
}

/** The row of an id, if there is one (looked up in a Map: ids are client-written words). */
export function decisionRow(id: string): DecisionRow | undefined {
  return byId.get(id);
}

/** The TypeScript module `npm run schema` writes. */
export function decisionRowsModule(rows: readonly DecisionRow[]): string {
  return `// Written by \`npm run schema\` from docs/decisions.md: do not edit.\nexport const DECISION_ROWS: readonly { id: string; case: string }[] = ${JSON.stringify(rows, null, 2)};\n`;
}
