import { describe, expect, it } from 'vitest';
import { checkOpenFiles } from './fleet-connect.ts';
import {
  badgesUnderLimit,
  OPEN_FILES_HEADROOM,
  openFilesLimit,
  roomForBadges,
} from './open-files.ts';

const LIMITS = `Limit                     Soft Limit           Hard Limit           Units
Max cpu time              unlimited            unlimited            seconds
Max open files            20000                20000                files
Max locked memory         8388608              8388608              bytes
`;

describe('open files (decision SC2)', () => {
  it("reads the soft limit of /proc/self/limits, and none when it says 'unlimited' or cannot be read", () => {
    expect(openFilesLimit(LIMITS)).toBe(20_000);
    expect(
      openFilesLimit(LIMITS.replace(/20000 {16}20000/, 'unlimited            unlimited')),
    ).toBe(undefined);
    expect(openFilesLimit('')).toBe(undefined);
    expect(badgesUnderLimit(20_000)).toBe(20_000 - OPEN_FILES_HEADROOM);
    expect(badgesUnderLimit(undefined)).toBe(undefined);
    // This machine's own: a number on Linux.
    if (process.platform === 'linux') expect(roomForBadges()).toBeGreaterThan(0);
  });

  it('a fleet larger than the limit allows is refused, saying the limit, the room and what to do; at the limit it is not', () => {
    expect(() => checkOpenFiles(19_900, 19_900)).not.toThrow();
    // Nothing limits them (no /proc, unlimited): nothing refused.
    expect(() => checkOpenFiles(50_000, badgesUnderLimit(undefined))).not.toThrow();
    // A stub in the same process: two sockets a badge.
    expect(() => checkOpenFiles(9_950, 19_900, 2)).not.toThrow();
    expect(() => checkOpenFiles(9_951, 19_900, 2)).toThrow(
      'badge-sim: 9,951 badges need 19,902 sockets (the stub is in this process: both ends of each are here), but this process may open at most 20,000 files (ulimit -n), room for 9,950 badges',
    );
    expect(() => checkOpenFiles(19_901, 19_900)).toThrow(
      'badge-sim: 19,901 badges need 19,901 sockets, but this process may open at most 20,000 files (ulimit -n), room for 19,900 badges: raise the limit (ulimit -n) or split the fleet over processes with --shard i/n',
    );
  });
});
