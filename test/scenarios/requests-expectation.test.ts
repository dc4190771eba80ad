/** `requests:` of a scenario: the stub's request journal verified, WireMock style. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { defineScenario, loadScenarioFile } from '../../scenarios/format/load-scenario.ts';
import { formatReport } from '../../scenarios/reports/console.reporter.ts';
import { runScenario } from '../../scenarios/runner/run-scenario.ts';

const REQUESTS = (expect: string) => `name: Requests verified
proves: The journal holds the alert sent, the refused one and the events read.
badges: none
timeline:
  - at: 0s
    alert: { notification: Spill in aisle 4, groups: [Nurses], timeout: 60 }
    expect: { status: 200 }
  - at: 1s
    alert: { notification: Not sent, groups: [Nurses] }
    auth: none
    expect: { status: 401 }
  - at: 2s
    events: {}
    expect: { status: 200 }
expect:
${expect}`;

const dir = mkdtempSync(join(tmpdir(), 'badge-sim-requests-'));
function run(name: string, expectations: string) {
  const path = join(dir, name);
  writeFileSync(path, REQUESTS(expectations));
  return runScenario(loadScenarioFile(path), { seed: 1 });
}

describe('requests: in a scenario', () => {
  test('matchers by method, path pattern, nested body fields, status, fault and count pass', async () => {
    const report = await run(
      'pass.scenario.yaml',
      `  requests:
    - { method: post, path: /subscribers/*/api/v1/alerts, body: { notification: Spill in aisle 4, groups: [Nurses] }, status: 200, count: 1 }
    - { path: "**/alerts", count: 2, fault: false }
    - { path: "**/alerts", status: 401, count: 1 }
    - { method: GET, path: "/subscribers/{id}/api/v1/events", count: { min: 1, max: 1 } }
    - { method: DELETE, count: 0 }
    - { path: /oauth2/token, count: { max: 0 } }
`,
    );
    expect(report.failures).toEqual([]);
  });

  test('a matcher that fails says how many matched and shows the closest requests and where they differ', async () => {
    const report = await run(
      'fail.scenario.yaml',
      `  requests:
    - { method: POST, path: "**/alerts", body: { notification: Spill in aisle 5 }, status: 200 }
    - { path: "**/alerts", count: 1 }
`,
    );
    expect(report.passed).toBe(false);
    const [body, count] = report.failures;
    expect(body).toMatchObject({
      what: 'requests[0]',
      message: '0 of 3 requests matched, expected at least 1',
      expected: [
        'POST **/alerts status 200 body ⊇ {"notification":"Spill in aisle 5"} × at least 1',
      ],
    });
    expect(body!.actual[0]).toMatch(
      /^#1 POST \/subscribers\/100001\/api\/v1\/alerts → 200 .* — body\.notification is "Spill in aisle 4", expected "Spill in aisle 5"$/,
    );
    expect(body!.actual[1]).toContain('status 401, expected 200');
    expect(count).toMatchObject({
      what: 'requests[1]',
      message: '2 of 3 requests matched, expected exactly 1',
    });
    expect(count!.actual).toHaveLength(2);
    const text = formatReport(report);
    expect(text).toContain('requests[0]: 0 of 3 requests matched, expected at least 1');
    expect(text).toContain('body.notification is "Spill in aisle 4", expected "Spill in aisle 5"');
  });

  test('a path pattern the journal refuses is a problem of the scenario, naming the matcher', async () => {
    const scenario = defineScenario({
      name: 'Bad pattern',
      proves: 'x',
      badges: 'none',
      timeline: [],
      expect: { requests: [{ path: '/a*b' }] },
    });
    await expect(runScenario(scenario)).rejects.toThrow(
      /expect\.requests\[0\]: path '\/a\*b' has 'a\*b'/,
    );
  });

  test('requests: is in the published schema and refuses unknown fields', () => {
    expect(() =>
      defineScenario({
        name: 'x',
        proves: 'x',
        badges: 'none',
        timeline: [],
        expect: { requests: [{ path: '/x', verb: 'GET' } as never] },
      }),
    ).toThrow(/requests\[0\]/);
  });
});
