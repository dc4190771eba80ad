/**
 * The "run it again" line of a scenario's report: the command that runs that one scenario as
 * this run did (issue 31 point 4). Its file (a scenario given in code, by `--grep` and its
 * name), the seed, and how the run reached its stub: `--stub URL`, or `--realtime`. A locked
 * stub's control token is named by its variable, never written: reports are shared.
 */
/** How a scenario runs: its stub in this process, one by URL, or on the real clock. */
export type RunMode = 'embedded' | 'external' | 'realtime';

export interface RerunOf {
  /** The scenario's file, or `<code>` for one given in code. */
  source: string;
  name: string;
  seed: number;
  mode: RunMode;
  /** The stub of an external run. */
  stubUrl?: string;
  /** Whether the run sent a control token (its value is never used here). */
  controlToken?: string;
}

export function rerunCommand(run: RerunOf): string {
  const scenario =
    run.source === '<code>' ? `--grep ${shellWord(run.name)}` : shellWord(run.source);
  const how =
    run.mode === 'external' && run.stubUrl
      ? ` --stub ${shellWord(run.stubUrl)}`
      : run.mode === 'realtime'
        ? ' --realtime'
        : '';
  const token = run.mode === 'external' && run.controlToken !== undefined;
  return `${token ? `BADGE_SIM_CONTROL_TOKEN=… ` : ''}npx badge-sim run ${scenario} --seed ${run.seed}${how}`;
}

/** A word as a POSIX shell reads it back: as it is when it can be, else in single quotes. */
function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}
