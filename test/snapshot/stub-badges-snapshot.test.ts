/**
 * The one-file form (issue 32, point 3; WS24): a stub that runs its badges (`startStub({ badges })`,
 * `badge-sim stub --badges`) adds them to its snapshot with `?include=badges`, and started from
 * that file carries them on; a badge the file does not hold connects fresh and hears what is open.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { startStub } from '../../index.ts';
import { request, serviceClient } from '../support/http.ts';

const ADA = '350000000000001';

interface SavedBadge {
  deviceId: string;
  heard: { at: number[] };
  machine: { value: unknown };
}

test('WS24: ?include=badges adds the badges the stub runs; a stub started from the file carries them on (WS35: no replay), and one it lacks connects and hears the open alert', async () => {
  const file = join(mkdtempSync(join(tmpdir(), 'badge-sim-stub-badges-')), 'world.snapshot.json');
  let taken: { badges: { format: string; at: number; badges: SavedBadge[] } };
  {
    await using stub = await startStub({ seed: 1, badges: 'Nurses' });
    await serviceClient(stub).alert({ notification: 'Code blue', groups: ['Nurses'] });
    await request(`${stub.controlUrl}/clock/advance`, { method: 'POST', body: { by: 45_000 } });
    expect((await request(`${stub.controlUrl}/snapshot`)).body.badges).toBeUndefined();
    taken = (await request(`${stub.controlUrl}/snapshot?include=badges`)).body;
  }
  expect(taken.badges.format).toBe('badge-sim-fleet/1');
  const saved = taken.badges.badges;
  expect(saved.map((b) => b.deviceId).sort()).toEqual([ADA, '350000000000002', '350000000000003']);
  // Ada's badge left out of the file: she connects fresh.
  const kept = saved.filter((b) => b.deviceId !== ADA);
  writeFileSync(file, JSON.stringify({ ...taken, badges: { ...taken.badges, badges: kept } }));

  await using again = await startStub({ badges: 'Nurses', snapshot: file });
  const now = (await request(`${again.controlUrl}/snapshot?include=badges`)).body;
  expect(now.clock.now).toBe(taken.badges.at);
  const byId = new Map<string, SavedBadge>(
    now.badges.badges.map((b: SavedBadge) => [b.deviceId, b]),
  );
  for (const badge of kept) {
    // Restored with the stub from one file, each carries on (WS35): what it heard before the
    // cut, no replay, still awaiting the acknowledgement between two repeats.
    expect(byId.get(badge.deviceId)!.heard.at).toEqual(badge.heard.at);
    expect(badge.machine.value).toEqual({ online: 'awaiting-ack' });
    expect(byId.get(badge.deviceId)!.machine.value).toEqual({ online: 'awaiting-ack' });
  }
  // Ada's fresh badge heard the open alert played again when she connected, at the cut's instant.
  expect(byId.get(ADA)!.heard.at).toEqual([taken.badges.at]);
});
