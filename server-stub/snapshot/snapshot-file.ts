/**
 * A world snapshot given when a stub starts (`startStub({ snapshot })`, `badge-sim stub
 * --snapshot FILE`): a document or the path of its JSON file, restored before the stub
 * listens. What cannot be read or restored is a `SnapshotError` saying what to fix (WS18).
 */
import { readFileSync } from 'node:fs';
import type { WorldSnapshot } from '../../protocol/snapshot.schema.ts';
import type { StubCore } from '../stub-core.ts';
import { SnapshotError } from './snapshot-checks.ts';
import { restoreSnapshot } from './world-snapshot.ts';

/** The JSON document of a snapshot file, or a `SnapshotError` naming the file and the fix. */
function readSnapshotFile(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'there is no such file' : `it cannot be read (${code})`;
    throw new SnapshotError(
      '',
      `snapshot ${path}: ${why}; give the path of a file GET /_stub/snapshot wrote`,
    );
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new SnapshotError(
      '',
      `snapshot ${path} is not JSON (${(error as Error).message}): a truncated or edited file? take the snapshot again`,
    );
  }
}

/**
 * Restores a snapshot given as a document or a file's path into a stub not yet listening; the
 * document, whose `badges` (if any) the stub's own badges carry on from (WS24).
 */
export function restoreGivenSnapshot(
  core: StubCore,
  snapshot: WorldSnapshot | string,
): WorldSnapshot {
  const document = typeof snapshot === 'string' ? readSnapshotFile(snapshot) : snapshot;
  try {
    return restoreSnapshot(core, document);
  } catch (error) {
    if (!(error instanceof SnapshotError)) throw error;
    const where = typeof snapshot === 'string' ? `snapshot ${snapshot}` : 'snapshot';
    throw new SnapshotError(
      error.field,
      `${where}: ${error.field ? `${error.field}: ` : ''}${error.message}`,
    );
  }
}
