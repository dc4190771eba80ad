/**
 * What `badge-sim init` writes (decision Y8): a scenario that passes, the fixtures it runs on
 * (the file a project edits), the scenarios as vitest tests and a GitHub Actions workflow. Kept
 * as text here, so the bundled command carries them and the package ships no template folder.
 */
import { join, relative } from 'node:path';

/** A file `init` writes: where (relative to the project) and its text. */
export interface InitFile {
  readonly path: string;
  readonly text: string;
  /** What it is, as `init` lists it. */
  readonly what: string;
}

/** Where the installed package's scenario schema is, relative to the project. */
export const INSTALLED_SCHEMA = 'node_modules/badge-sim/dist/scenarios/scenario.schema.json';

const FIXTURES_FILE_NAME = 'fixtures.yaml';
const SCENARIO_FILE_NAME = 'first-alert.scenario.yaml';
const VITEST_FILE_NAME = 'scenarios.test.mjs';
const WORKFLOW_FILE = '.github/workflows/badge-sim.yml';

/** The files for scenarios in `folder` (relative to the project, `scenarios` by default). */
export function initFiles(folder: string): InitFile[] {
  const schema = relative(folder, INSTALLED_SCHEMA).split('\\').join('/');
  return [
    {
      path: join(folder, SCENARIO_FILE_NAME),
      text: scenarioText(schema),
      what: 'a scenario that passes: an alert, a tap, the events and what the badges heard',
    },
    {
      path: join(folder, FIXTURES_FILE_NAME),
      text: FIXTURES_TEXT,
      what: 'the account, groups and badges the scenarios run on: edit them',
    },
    {
      path: join(folder, VITEST_FILE_NAME),
      text: VITEST_TEXT,
      what: 'the scenarios as vitest tests (badge-sim/vitest)',
    },
    {
      path: WORKFLOW_FILE,
      text: workflowText(folder),
      what: 'CI: the scenarios on every push and pull request (GitHub Actions, npx)',
    },
  ];
}

function scenarioText(schema: string): string {
  return `# yaml-language-server: $schema=${schema}
# A scenario: what happens (timeline), for how long (duration) and what must come of it
# (expect). Fields complete in an editor with the YAML language server (the line above).
name: First alert
proves: An alert to the Nurses reaches both badges; the first tap ends it and the other badge hears on_quorum.
fixtures: { file: ${FIXTURES_FILE_NAME} }
badges: { group: Nurses }
behaviours:
  Ben Okafor: { ack: { after: 5s } }
timeline:
  - at: 0s
    alert: { notification: Spill in ward 3, groups: [Nurses], quorum: 1, on_quorum: Covered }
    as: spill
    expect: { status: 200 }
duration: 1m
expect:
  events:
    only: true
    items:
      - { type: start, task: spill, at: 0s }
      - { type: acknowledged, device: Ben Okafor, task: spill, at: 5s }
      - { type: end, status: normal, at: 5s }
  heard:
    Ada Mensah: { texts: [Spill in ward 3, Covered] }
  tasks:
    spill: { outcome: quorum, acknowledgements: 1 }
`;
}

const FIXTURES_TEXT = `# The fixtures the scenarios run on (\`fixtures: { file: ${FIXTURES_FILE_NAME} }\`): the
# account your software calls the service as, its API keys, groups and devices. Edit them to
# look like yours; \`badge-sim stub --fixtures ${FIXTURES_FILE_NAME}\` serves the same.
accounts:
  - subscriber_id: "100001"
    name: My site
    api_keys: [my-api-key-0001]
    groups:
      - id: "5001"
        name: Nurses
        members: ["350000000000001", "350000000000002"]
    devices:
      - { id: "350000000000001", user: Ada Mensah, key: badge-key-0001 }
      - { id: "350000000000002", user: Ben Okafor, key: badge-key-0002 }
`;

/**
 * Spelt in pieces: the build rewrites that expression wherever the bundled command's sources
 * hold it (scripts/bundle-cli.mjs), text in a string included.
 */
const IMPORT_META_URL = ['import', 'meta', 'url'].join('.');

const VITEST_TEXT = `// The scenarios of this folder as vitest tests: one test a scenario, its report as the
// failure. Run: npx vitest run (vitest is a dev dependency: npm install -D vitest).
import { fileURLToPath } from 'node:url';
import { scenarioTests } from 'badge-sim/vitest';

scenarioTests(fileURLToPath(new URL('.', ${IMPORT_META_URL})));
`;

function workflowText(folder: string): string {
  return `# The badge-sim scenarios on every push and pull request; the HTML report is kept.
name: badge-sim
on: [push, pull_request]
jobs:
  scenarios:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-node@v4
        with: { node-version: 22, cache: npm }
      - run: npm ci
      - run: npx badge-sim run ${folder}/ --reporter console --reporter html -o badge-sim-report.html
      - uses: actions/upload-artifact@v4
        if: always()
        with: { name: badge-sim-report, path: badge-sim-report.html }
`;
}
