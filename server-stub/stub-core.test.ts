/**
 * What the stub's core keeps (docs/decisions.md, "Hardening: memory"): workflow invocations
 * follow the 7-day retention and a cap; a reset leaves no task, transcript, event, invocation
 * or timer behind. On the virtual clock.
 */
import { describe, expect, it } from 'vitest';
import { formatTimestamp } from '../clock/clock.ts';
import { DEFAULT_FIXTURES_FILE, loadFixturesFile } from '../fixtures/load-fixtures.ts';
import type { EngineError } from './engine/engine-error.ts';
import { StubCore, type WorkflowInvocation } from './stub-core.ts';

const SEVEN_DAYS = 7 * 24 * 3600 * 1000;
/** The documented cap of the invocation record (H3): `INVOCATIONS_CAP`. */
const INVOCATIONS_CAP = 10_000;

function core(): StubCore {
  return new StubCore({ fixtures: loadFixturesFile(DEFAULT_FIXTURES_FILE), seed: 1 });
}

/** An invocation as the trigger route records it, at the core's current instant. */
function invoke(stub: StubCore, n: number): void {
  const invocation: WorkflowInvocation = {
    invocation_id: `inv_${n}`,
    environment: 'pro',
    workflow_id: 'wf_http_1',
    subscriber_id: '100001',
    user_id: '350000000000001',
    action: 'invoke',
    at: formatTimestamp(stub.clock.now()),
  };
  stub.invocations.push(invocation);
}

describe('workflow invocations', () => {
  it('are kept 7 days, then forgotten', async () => {
    const stub = core();
    invoke(stub, 1);
    await stub.clock.advanceBy(60_000);
    invoke(stub, 2);
    await stub.clock.advanceBy(SEVEN_DAYS - 60_000);
    expect(stub.invocations.map((i) => i.invocation_id)).toEqual(['inv_1', 'inv_2']);
    await stub.clock.advanceBy(1);
    expect(stub.invocations.map((i) => i.invocation_id)).toEqual(['inv_2']);
    await stub.clock.advanceBy(60_000);
    expect(stub.invocations).toEqual([]);
  });

  it(`keep at most ${INVOCATIONS_CAP}, the oldest dropped first`, () => {
    const stub = core();
    for (let n = 0; n < INVOCATIONS_CAP + 5; n++) invoke(stub, n);
    const kept = stub.invocations;
    expect(kept).toHaveLength(INVOCATIONS_CAP);
    expect(kept[0]!.invocation_id).toBe('inv_5');
    expect(kept.at(-1)!.invocation_id).toBe(`inv_${INVOCATIONS_CAP + 4}`);
    expect(stub.kept().invocations).toEqual({
      cap: INVOCATIONS_CAP,
      kept: INVOCATIONS_CAP,
      dropped: 5,
    });
    stub.reset();
    expect(stub.kept().invocations.dropped).toBe(0);
  });
});

describe('reset', () => {
  it('leaves no task, lane, transcript, event, invocation or timer behind', async () => {
    const stub = core();
    for (let i = 0; i < 50; i++) {
      stub.engine.createAlert('100001', {
        notification: `alert ${i}`,
        groups: ['Nurses'],
        timeout: 120,
      });
      invoke(stub, i);
      await stub.clock.advanceBy(20_000);
    }
    expect(stub.engine.stats().tasks).toBe(50);
    expect(stub.clock.state.pendingTimers).toBeGreaterThan(0);

    stub.reset();

    expect(stub.engine.stats()).toEqual({
      tasks: 0,
      alerting: 0,
      ended: 0,
      laneDevices: 0,
      lanes: 0,
      transcriptDevices: 0,
      transcriptEntries: 0,
      eventAccounts: 0,
      events: 0,
    });
    expect(stub.clock.state.pendingTimers).toBe(0);
    expect(stub.invocations).toEqual([]);
  });
});

describe('renew: a kept stub as a new one would be (decision SP1)', () => {
  /** A bit of everything that draws on the seed, the clock and the stores; what it shows. */
  async function play(stub: StubCore) {
    const account = stub.fixtures.accounts[0]!;
    const shown = {
      now: stub.clock.now(),
      mode: stub.clock.mode,
      recording: stub.recorder.recording,
      journal: stub.journal.size,
      faults: stub.faults.size,
      invocations: stub.invocations.length,
      fixtures: stub.fixtures.accounts.map((a) => a.subscriber_id),
      task: stub.engine.createAlert(account.subscriber_id, {
        notification: 'One',
        groups: [account.groups[0]!.name],
      }).taskId,
      refresh: stub.tokens.issueRefreshToken(account.subscriber_id, 'pro'),
      fault: stub.faults.add({ match: { path: '/x' }, action: { status: 503 } }).id,
    };
    invoke(stub, 1);
    stub.startRecording();
    await stub.clock.advanceBy(90_000);
    return shown;
  }
  const other = structuredClone(loadFixturesFile(DEFAULT_FIXTURES_FILE));
  other.accounts = other.accounts.slice(1);

  it('ids, tokens and fault ids from the first of the new seed, no reset mark; stores empty, recording off, clock at its start', async () => {
    const fresh = await play(
      new StubCore({ fixtures: loadFixturesFile(DEFAULT_FIXTURES_FILE), seed: 2 }),
    );
    const kept = core();
    await play(kept);
    kept.reset(); // a reset marks tokens `_r1`: a renew starts again without a mark
    await play(kept);
    kept.renew({ seed: 2 });
    expect(await play(kept)).toEqual(fresh);
    expect(fresh.refresh).not.toContain('_r');
  });

  it('with other fixtures: as a new core given them', async () => {
    const fresh = await play(new StubCore({ fixtures: other, seed: 3 }));
    const kept = core();
    await play(kept);
    kept.renew({ fixtures: other, seed: 3 });
    expect(await play(kept)).toEqual(fresh);
  });
});

describe('invokeWorkflow: the trigger interface without HTTP', () => {
  const ADA = '350000000000001';
  const invoke = (stub: StubCore, workflowId: string, userId: unknown, body: unknown) =>
    stub.invokeWorkflow('pro', '100001', workflowId, { userId, body });
  const refusal = (run: () => unknown) => {
    try {
      run();
    } catch (error) {
      const { code, field } = error as EngineError;
      return `${code} ${field}`;
    }
    return 'invoked';
  };

  it('keeps the invocation and speaks the workflow on the user and each target, once each', () => {
    const stub = core();
    const answer = invoke(stub, 'wf_http_page_security', ADA, {
      action: 'invoke',
      action_args: { floor: 2 },
      target_device_ids: [ADA, '350000000000002'],
    });
    expect(answer).toEqual({ status: 'invoked', invocation_id: expect.stringMatching(/^inv_/) });
    expect(stub.invocations).toEqual([
      {
        invocation_id: answer.invocation_id,
        environment: 'pro',
        workflow_id: 'wf_http_page_security',
        subscriber_id: '100001',
        user_id: ADA,
        action: 'invoke',
        action_args: { floor: 2 },
        target_device_ids: [ADA, '350000000000002'],
        at: '2026-01-01T00:00:00.000000Z',
      },
    ]);
    for (const id of [ADA, '350000000000002'])
      expect(stub.engine.transcript(id)).toEqual([
        expect.objectContaining({ type: 'speak', text: 'Security to the front desk please' }),
      ]);
  });

  it('refuses in order (user, body, action, arguments, targets, workflow, devices) and changes nothing', () => {
    const stub = core();
    const ok = { action: 'invoke' };
    expect([
      refusal(() => invoke(stub, 'wf_none', undefined, 5)),
      refusal(() => invoke(stub, 'wf_none', ADA, [ok])),
      refusal(() => invoke(stub, 'wf_none', ADA, { action: 'run' })),
      refusal(() => invoke(stub, 'wf_none', ADA, { ...ok, action_args: [1] })),
      refusal(() =>
        invoke(stub, 'wf_none', ADA, { ...ok, action_args: { a: 'x'.repeat(70_000) } }),
      ),
      refusal(() => invoke(stub, 'wf_none', ADA, { ...ok, target_device_ids: [1] })),
      refusal(() => invoke(stub, 'wf_none', 'nobody', ok)),
      refusal(() => invoke(stub, 'wf_shift_report', 'nobody', ok)),
      refusal(() => invoke(stub, 'wf_http_dock_call', ADA, ok)),
      refusal(() => invoke(stub, 'wf_http_page_security', 'nobody', ok)),
      refusal(() =>
        invoke(stub, 'wf_http_page_security', ADA, { ...ok, target_device_ids: [ADA, 'x'] }),
      ),
      refusal(() => invoke(stub, 'valueOf', ADA, JSON.parse('{"__proto__":{"action":"invoke"}}'))),
    ]).toEqual([
      'invalid_field user_id',
      'invalid_field body',
      'invalid_field action',
      'invalid_field action_args',
      'too_large action_args',
      'invalid_field target_device_ids',
      'unknown_workflow workflow_id',
      'not_an_http_workflow workflow_id',
      'unknown_workflow workflow_id',
      'unknown_device user_id',
      'unknown_device target_device_ids[1]',
      'invalid_field action',
    ]);
    expect(stub.invocations).toEqual([]);
    expect(stub.engine.transcript(ADA)).toEqual([]);
  });
});

describe('exchangeToken: oauth2/token without HTTP', () => {
  const REFRESH = 'demo-refresh-token-riverside-pro-0001';
  const exchange = (stub: StubCore, body: unknown) => {
    const answer = stub.exchangeToken('pro', body);
    return 'refused' in answer
      ? `${answer.refused.status} ${answer.refused.body.error}`
      : answer.issued.token_type;
  };

  it('checks grant type, client id, refresh token, then the client and the token, in OAuth words', () => {
    const stub = core();
    const client = stub.settings.environments.pro.cliClientId;
    const qaClient = stub.settings.environments.qa.cliClientId;
    const good = { grant_type: 'refresh_token', client_id: client, refresh_token: REFRESH };
    expect([
      exchange(stub, undefined),
      exchange(stub, { ...good, grant_type: 'password' }),
      exchange(stub, { ...good, client_id: ['x'] }),
      exchange(stub, { ...good, refresh_token: '' }),
      exchange(stub, { ...good, client_id: qaClient, refresh_token: 'unknown' }),
      exchange(stub, { ...good, refresh_token: 'demo-refresh-token-riverside-qa-0001' }),
      exchange(stub, good),
    ]).toEqual([
      '400 invalid_request',
      '400 unsupported_grant_type',
      '400 invalid_request',
      '400 invalid_request',
      '401 invalid_client',
      '400 invalid_grant',
      'Bearer',
    ]);
  });
});
