/**
 * How many files (sockets among them) this process may open: the soft `ulimit -n`, read from
 * /proc/self/limits. Each badge's connection is one open socket in the fleet's process and one
 * in the stub's, so the limit caps how many badges one process holds (decision SC2). Undefined
 * where it cannot be read (not Linux) or there is no limit.
 */
import { readFileSync } from 'node:fs';

/** Files a process needs besides its badges' sockets (modules, the listener, logs, pipes). */
export const OPEN_FILES_HEADROOM = 100;

/** The limit a /proc/<pid>/limits text gives, or undefined (unlimited, unreadable). */
export function openFilesLimit(limitsText: string | undefined): number | undefined {
  const match = /^Max open files\s+(\d+)\s/m.exec(limitsText ?? '');
  return match ? Number(match[1]) : undefined;
}

/** How many badge connections fit under a limit, or undefined when nothing limits them. */
export function badgesUnderLimit(limit: number | undefined): number | undefined {
  return limit === undefined ? undefined : Math.max(0, limit - OPEN_FILES_HEADROOM);
}

/** How many badge connections fit in this process. */
export function roomForBadges(): number | undefined {
  return badgesUnderLimit(openFilesLimit(readLimits()));
}

function readLimits(): string | undefined {
  try {
    return readFileSync('/proc/self/limits', 'utf8');
  } catch {
    return undefined;
  }
}
