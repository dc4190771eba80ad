/**
 * `run --watch` (decision Y9): from the first run's start (a file saved while it runs is run
 * again once it is over), the folders of the scenario files and of the
 * fixtures files they name are watched (fs.watch, one watcher a folder); a change to a scenario
 * file reruns that scenario, a change to a fixtures file the scenarios that name it, a new
 * scenario file that the paths given match runs it. Changes are gathered until none has come
 * for DEBOUNCE_MS, one line says what changed and what runs again, and a change during a run
 * waits for its end. Ctrl+C (SIGINT) or SIGTERM stops watching with the last run's status.
 * Loaded only when --watch is given.
 */
import { existsSync, type FSWatcher, statSync, watch } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { loadScenarioFile } from '../scenarios/format/load-scenario.ts';
import { findScenarioFiles } from '../scenarios/runner/run-suite.ts';

/** Editors write a file in several steps (truncate, write, rename): one change, one rerun. */
export const DEBOUNCE_MS = 150;

export interface WatchOptions {
  /** The paths `run` was given (files, folders, patterns), found again for new files. */
  readonly paths: readonly string[];
  /** The scenario files of the first run. */
  readonly files: readonly string[];
  /** Runs these scenario files and reports; resolves to the run's exit status (0 or 1). */
  readonly rerun: (files: string[]) => Promise<number>;
  /** The first run's exit status. */
  readonly status: number;
  /**
   * When the first run began (ms since the epoch): a watched file saved after it, while the
   * first run ran and before anything watched, runs again at once (Y9), not never.
   */
  readonly since?: number;
  readonly log?: (line: string) => void;
}

/** Watches until SIGINT or SIGTERM; resolves to the last run's status, the one to exit with. */
export function watchScenarios(options: WatchOptions): Promise<number> {
  const log = options.log ?? ((line) => process.stderr.write(`badge-sim run --watch: ${line}\n`));
  // Kept absolute, as fs.watch and the fixtures files name them; run as `run` found them.
  let files = absolute(options.files);
  let usedBy = fixturesUsers(files);
  let status = options.status;
  const watchers = new Map<string, FSWatcher>();
  const changed = new Set<string>();
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;

  const watchFolders = () => {
    for (const folder of new Set([...files.keys(), ...usedBy.keys()].map((f) => dirname(f)))) {
      if (watchers.has(folder) || !existsSync(folder)) continue;
      const watcher = watch(folder, (_event, name) => {
        if (!name) return;
        changed.add(join(folder, name.toString()));
        clearTimeout(timer);
        timer = setTimeout(() => void settle(), DEBOUNCE_MS);
      });
      watchers.set(folder, watcher);
    }
    const count = files.size + usedBy.size;
    log(
      `watching ${count} file${count === 1 ? '' : 's'} in ${watchers.size} folder${watchers.size === 1 ? '' : 's'}; Ctrl+C to stop`,
    );
  };

  const settle = async (): Promise<void> => {
    if (running) return void running.then(settle);
    const paths = [...changed];
    changed.clear();
    const found = absolute(findScenarioFiles([...options.paths]));
    const toRun = new Set<string>();
    for (const path of paths) {
      if (found.has(path)) toRun.add(path);
      for (const user of usedBy.get(path) ?? []) if (found.has(user)) toRun.add(user);
    }
    const relevant = paths.filter((path) => found.has(path) || usedBy.has(path) || files.has(path));
    files = found;
    usedBy = fixturesUsers(files);
    if (relevant.length === 0) return;
    const names = relevant.map((path) => relative(process.cwd(), path) || basename(path));
    const gone =
      toRun.size === 0
        ? ': nothing to run again'
        : `: running ${toRun.size} scenario${toRun.size === 1 ? '' : 's'} again`;
    log(`${names.join(', ')} changed${gone}`);
    if (toRun.size === 0) return;
    running = options.rerun([...toRun].map((file) => found.get(file)!)).then((result) => {
      status = result;
      running = undefined;
      watchFolders();
    });
    await running;
  };

  // Ctrl+C is heard before the first line says it may be pressed.
  const stopped = new Promise<number>((resolve) => {
    const stop = () => {
      clearTimeout(timer);
      for (const watcher of watchers.values()) watcher.close();
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      log(`stopped; exit status ${status}, the last run's`);
      resolve(status);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  watchFolders();
  const savedDuringFirstRun = [...files.keys(), ...usedBy.keys()].filter(
    (file) => options.since !== undefined && modifiedMs(file) > options.since,
  );
  if (savedDuringFirstRun.length > 0) {
    for (const file of savedDuringFirstRun) changed.add(file);
    void settle();
  }
  return stopped;
}

/** When `file` was last written, or -Infinity when it is not there now. */
function modifiedMs(file: string): number {
  try {
    return statSync(file).mtimeMs;
  } catch {
    return Number.NEGATIVE_INFINITY;
  }
}

/** Each file by its absolute path, with the path as `run` was given it. */
function absolute(files: readonly string[]): Map<string, string> {
  return new Map(files.map((file) => [resolve(file), file]));
}

/** Each fixtures file the scenario files name (absolute), with the files that name it. */
function fixturesUsers(files: ReadonlyMap<string, string>): Map<string, string[]> {
  const users = new Map<string, string[]>();
  for (const file of files.keys()) {
    let fixturesFile: string | undefined;
    try {
      fixturesFile = loadScenarioFile(file).fixturesFile;
    } catch {
      // A scenario that does not load names no fixtures file we can read; its own file is watched.
      continue;
    }
    if (fixturesFile) users.set(fixturesFile, [...(users.get(fixturesFile) ?? []), file]);
  }
  return users;
}
