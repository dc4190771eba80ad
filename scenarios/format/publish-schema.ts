/**
 * Writes scenarios/scenario.schema.json from the model, for editors (`# yaml-language-server:
 * $schema=…` at the top of a scenario file). `npm run schema` runs it; a test checks the
 * committed file is current.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { decisionRowsModule, parseDecisionRows } from './decision-rows.ts';
import { Scenario } from './scenario.schema.ts';

export const SCENARIO_SCHEMA_FILE = fileURLToPath(
  new URL('../scenario.schema.json', import.meta.url),
);

export function scenarioJsonSchema(): string {
  const schema = {
    $schema: 'http://json-schema.org/draft-07/schema#',
    $id: 'https://badge-sim.dev/scenario.schema.json',
    title: 'badge-sim scenario',
    ...JSON.parse(JSON.stringify(Scenario)),
  };
  return `${JSON.stringify(schema, null, 2)}\n`;
}

/** The decision rows an installed badge-sim knows (scenarios' `decisions:`, decision CV3). */
export const DECISION_ROWS_FILE = fileURLToPath(
  new URL('./decision-rows.generated.ts', import.meta.url),
);
export const DECISIONS_DOC = fileURLToPath(new URL('../../docs/decisions.md', import.meta.url));

export function decisionRowsSource(): string {
  return decisionRowsModule(parseDecisionRows(readFileSync(DECISIONS_DOC, 'utf8')));
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeFileSync(SCENARIO_SCHEMA_FILE, scenarioJsonSchema());
  console.log(`wrote ${SCENARIO_SCHEMA_FILE}`);
  writeFileSync(DECISION_ROWS_FILE, decisionRowsSource());
  console.log(`wrote ${DECISION_ROWS_FILE}`);
}
