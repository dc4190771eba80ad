/**
 * `badge-sim diff A B`: two snapshot files read, checked as a restore would check them, made
 * views (world-views.ts) and compared (world-diff.ts). Each shape of snapshot is one row of
 * `SHAPES`, found by its `format`. A file that cannot be read or is not a snapshot this
 * badge-sim reads is a `DiffUsageError` naming the file and what is wrong (exit 2).
 */
import { readFileSync } from 'node:fs';
import { SNAPSHOT_FORMAT, type WorldSnapshot } from '../protocol/snapshot.schema.ts';
import { formatTimestamp } from '../protocol/timestamp.ts';
import { checkSnapshot, SnapshotError } from '../server-stub/snapshot/snapshot-checks.ts';
import { FleetError } from '../simulator/fleet-connect.ts';
import { FLEET_SNAPSHOT_FORMAT } from '../simulator/snapshot/fleet-snapshot.schema.ts';
import { readFleetSnapshot } from '../simulator/snapshot/fleet-snapshot.ts';
import { type Difference, diffWorlds } from './world-diff.ts';
import { fleetView, stubView, type WorldView } from './world-views.ts';

/** A file that is not a snapshot to compare, or two that cannot be: exit 2. */
export class DiffUsageError extends Error {}

/** Each shape of snapshot by its format: the checks a restore makes, then its view. */
const SHAPES: Record<string, { what: string; view: (data: unknown) => WorldView }> = {
  [SNAPSHOT_FORMAT]: { what: "a stub's (GET /_stub/snapshot)", view: stubSnapshotView },
  [FLEET_SNAPSHOT_FORMAT]: { what: "a fleet's (fleet.snapshot())", view: fleetSnapshotView },
};

function stubSnapshotView(data: unknown): WorldView {
  const given = data as Partial<WorldSnapshot> | null;
  // One taken with ?secrets=omit is for reading: fine to compare, though not to restore (WS6).
  const readable = given?.secrets === 'omitted' ? { ...given, secrets: 'included' } : given;
  const settings = (given?.settings ?? {}) as WorldSnapshot['settings'];
  try {
    return stubView(checkSnapshot(readable, settings).snapshot);
  } catch (error) {
    if (!(error instanceof SnapshotError)) throw error;
    throw new Error(
      error.field && !error.message.startsWith(error.field)
        ? `${error.field}: ${error.message}`
        : error.message,
    );
  }
}

function fleetSnapshotView(data: unknown): WorldView {
  const badges = (data as { badges?: unknown } | null)?.badges;
  const ids = Array.isArray(badges) ? badges.map((b) => String(b?.deviceId)) : [];
  try {
    return fleetView(readFleetSnapshot(data, new Set(ids)));
  } catch (error) {
    if (!(error instanceof FleetError)) throw error;
    throw new Error(error.message.replace(/^badge-sim: /, ''));
  }
}

interface ReadWorld {
  file: string;
  view: WorldView;
}

/** A snapshot file read, checked and made a view; a `DiffUsageError` says what is wrong. */
function readWorld(file: string): ReadWorld {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new DiffUsageError(
      `${file}: ${code === 'ENOENT' ? 'there is no such file' : `it cannot be read (${code})`}`,
    );
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new DiffUsageError(
      `${file} is not JSON (${(error as Error).message}): a truncated or edited file? take the snapshot again`,
    );
  }
  const format = (data as { format?: unknown } | null)?.format;
  const shape = typeof format === 'string' ? SHAPES[format] : undefined;
  if (!shape) {
    const known = Object.entries(SHAPES)
      .map(([f, s]) => `${f}, ${s.what}`)
      .join('; ');
    throw new DiffUsageError(
      `${file}: format is ${JSON.stringify(format)}, not a snapshot this badge-sim reads (${known})`,
    );
  }
  try {
    return { file, view: shape.view(data) };
  } catch (error) {
    throw new DiffUsageError(`${file}: ${(error as Error).message}`);
  }
}

export interface WorldDiff {
  same: boolean;
  a: { file: string; kind: string; at: string };
  b: { file: string; kind: string; at: string };
  differences: Difference[];
}

/** Two worlds read and compared; two of different kinds cannot be (a `DiffUsageError`). */
export function diffFiles(fileA: string, fileB: string): WorldDiff {
  const a = readWorld(fileA);
  const b = readWorld(fileB);
  if (a.view.kind !== b.view.kind)
    throw new DiffUsageError(
      `${fileA} is ${a.view.kind}, ${fileB} ${b.view.kind}: compare two of one kind`,
    );
  const differences = diffWorlds(a.view, b.view);
  const side = ({ file, view }: ReadWorld) => ({
    file,
    kind: view.kind,
    at: formatTimestamp(view.at),
  });
  return { same: differences.length === 0, a: side(a), b: side(b), differences };
}

/** The diff as text: one line saying so when the same, else a line a difference. */
export function diffText(diff: WorldDiff): string {
  if (diff.same)
    return `the two worlds are the same: ${diff.a.file} and ${diff.b.file}, ${diff.a.kind} at ${diff.a.at}\n`;
  const lines = diff.differences.map((d) => `  ${d.part}: ${d.text}\n`);
  return `A ${diff.a.file} and B ${diff.b.file} (${diff.a.kind}) differ in ${lines.length} way(s):\n${lines.join('')}`;
}
