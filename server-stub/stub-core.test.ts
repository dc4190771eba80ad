/**
 * What the stub's core keeps (docs/decisions.md, "Hardening: memory"): workflow invocations
 * follow the 7-day retention and a cap; a reset leaves no task, transcript, event, invocation
 * or timer behind. On the virtual clock.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_FIXTURES_FILE, loadFixturesFile } from '../fixtures/load-fixtures.ts';
import { formatTimestamp } from '../protocol/clock.ts';
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
