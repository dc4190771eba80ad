/**
 * `badge-sim stub --snapshot FILE`: a stub in another process starts from a world a file
 * holds; a file that is missing, not JSON or not a snapshot is a message saying what to fix,
 * exit 2 (docs/decisions.md WS18).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { startStub } from '../../server-stub/start-stub.ts';
import { runCli, startStubProcess } from '../support/cli.ts';
import { request, serviceClient } from '../support/http.ts';

const dir = mkdtempSync(join(tmpdir(), 'badge-sim-snapshot-cli-'));

describe('badge-sim stub --snapshot', () => {
  test('starts from the world the file holds: its tasks, events and clock', async () => {
    await using taken = await startStub({ seed: 2 });
    await serviceClient(taken).alert({ notification: 'Code blue', groups: ['Nurses'], quorum: 1 });
    await request(`${taken.controlUrl}/clock/advance`, { method: 'POST', body: { by: 31_000 } });
    const world = (await request(`${taken.controlUrl}/snapshot`)).body;
    const file = join(dir, 'world.json');
    writeFileSync(file, JSON.stringify(world));
    await using cli = await startStubProcess(['--snapshot', file]);
    const tasks = await request(`${cli.url}/_stub/tasks`);
    expect(tasks.body).toEqual((await request(`${taken.controlUrl}/tasks`)).body);
    const health = await request(`${cli.url}/_stub/health`);
    expect(health.body.clock.now).toBe(world.taken_at);
  });

  test.each([
    [
      'a missing file',
      () => join(dir, 'missing.json'),
      /missing\.json: there is no such file; give the path of a file GET \/_stub\/snapshot wrote/,
    ],
    [
      'a truncated file',
      () => write('cut.json', '{"format":"badge-sim-snapshot/2","fix'),
      /cut\.json is not JSON .*take the snapshot again/,
    ],
    [
      'another format',
      () => write('v1.json', '{"format":"badge-sim-snapshot/1"}'),
      /format: format is "badge-sim-snapshot\/1": this stub reads badge-sim-snapshot\/2 only/,
    ],
  ])('%s: a message saying what to fix, exit 2', (_what, path, says) => {
    const result = runCli(['stub', '--port', '0', '--snapshot', path()]);
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/^badge-sim: --snapshot \(BADGE_SIM_SNAPSHOT\): /);
    expect(result.stderr).toMatch(says);
  });

  test('with --fixtures too: exit 2, the snapshot brings its own', () => {
    const result = runCli(['stub', '--snapshot', 'a.json', '--fixtures', 'b.yaml']);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('--snapshot (BADGE_SIM_SNAPSHOT) brings its own fixtures');
  });
});

function write(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}
