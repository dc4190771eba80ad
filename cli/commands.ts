/**
 * The subcommands of `badge-sim`: what the top-level help lists of each. The top level loads
 * none of them (`badge-sim --version` and `--help` read only this table); `badge-sim <name>`
 * loads the one it runs (command-loaders.ts), which brings its own options and `--help`. Each
 * command file takes its description from here, so the two listings cannot differ; the
 * loaders live apart so that no command file imports the module that imports it.
 */

export interface CommandEntry {
  /** As the top-level help lists it: the name, `[options]` and the arguments. */
  readonly term: string;
  readonly description: string;
  /**
   * What exit statuses 0 and 1 say of this command, when more than "done" and when it has a
   * run that can fail, and what usage errors (2, for every command) it has when it neither
   * starts nor reaches a stub: its `--help` says them.
   */
  readonly exitStatus?: {
    readonly done?: string;
    readonly failed?: string;
    readonly usage?: string;
  };
}

/** In the order the top-level help lists them. */
export const COMMANDS = {
  stub: {
    term: 'stub [options]',
    description:
      "Run the stub of the service: the notification interface and its alert engine, the token, workflow-trigger and device-info interface (pro and qa), the badges' WebSocket and the control API.",
    exitStatus: {
      done: 'stopped by Ctrl+C (SIGINT) or SIGTERM',
      usage:
        'a wrong option, fixtures, a snapshot, a certificate or --badges it cannot use, or an address it cannot listen on (the message says which and what to do)',
    },
  },
  devices: {
    term: 'devices [options]',
    description: 'Run a fleet of virtual badges against a running stub, until Ctrl+C (or --for).',
    exitStatus: {
      done: 'stopped by Ctrl+C or --for',
      failed: 'the stub stayed unreachable for --give-up-after while the badges ran',
    },
  },
  run: {
    term: 'run [options] [paths...]',
    description:
      'Run scenarios (the built-in catalogue by default) and report; exit 1 if any fails.',
    exitStatus: {
      done: 'every scenario passed',
      failed: 'a scenario failed, or a scenario file could not be loaded',
    },
  },
  env: {
    term: 'env [options]',
    description:
      'List the environments of a stub: API host, auth host, client ids (pro is the default).',
  },
  analytics: {
    term: 'analytics [options]',
    description: 'List analytic events: by default the 20 most recent of the last 7 days.',
  },
  repro: {
    term: 'repro [options] <export...>',
    description:
      "Infer a scenario from a field export of analytic events, run it, and show where the stub's history parts from the field's.",
    exitStatus: {
      done: 'the histories match (with --search: some variant explains the log)',
      failed: 'the histories differ (the first difference is marked >> and said in a sentence)',
      usage:
        'a wrong option or argument, or an export, --alerts, --journal or --fixtures file it cannot read or use (the message says which and what to do)',
    },
  },
  record: {
    term: 'record [options] <recording>',
    description:
      'Turn a recording of a live session (badge-sim stub --record FILE, or GET /_stub/recording saved to a file) into a scenario: the fixtures the session touched, the badges that connected, a timeline replaying each request, tap, drop and battery reading at its time, and as its expectations the analytic events, what each badge heard and the answers observed (for a refusal, its code and field too).',
    exitStatus: {
      failed: 'the scenario made does not load, or does not pass with --check (nothing written)',
      usage:
        'a wrong option or argument, a recording or --fixtures file it cannot read or use, or a --to file it cannot write (the message says which and what to do)',
    },
  },
  'show-trace': {
    term: 'show-trace [options] <trace>',
    description:
      "Show a trace (run --trace, stub --trace) or a session recording in the browser: a lane per badge and per alert on a time axis, a cursor to scrub and step, each badge's and alert's state at it; served on 127.0.0.1, or written to one file with --out.",
    exitStatus: {
      done: 'the page was written (--out), or the server stopped by Ctrl+C (SIGINT) or SIGTERM',
      usage:
        'a wrong option or argument, a trace it cannot read (truncated, foreign, of a newer format: the message says which), an --out it cannot write or a --port it cannot listen on',
    },
  },
  'merge-reports': {
    term: 'merge-reports [options] <report...>',
    description:
      'Merge the reports of the shards of a run (badge-sim run --shard i/n) into one, as if the suite had run whole.',
    exitStatus: {
      done: "merged (failed scenarios included: the shards' runs said so)",
      usage:
        'a wrong option or argument, a report it cannot read or that badge-sim did not write, or reports of mixed kinds (the message says which and what to do)',
    },
  },
  diff: {
    term: 'diff [options] <a> <b>',
    description:
      'Say in words how two worlds differ: two snapshots of a stub (GET /_stub/snapshot) or of a fleet (fleet.snapshot()), their instants, tasks, events, devices, badges and seeded generators.',
    exitStatus: {
      done: 'the two worlds are the same',
      failed: 'they differ (each difference is a line)',
      usage:
        'a file it cannot read, or that is not a snapshot this badge-sim reads, or two of different kinds (the message names the file and what is wrong)',
    },
  },
  generate: {
    term: 'generate [options]',
    description:
      "Generate scenarios from the alert model: every order in which the badges acknowledge, a tap just before, at and just after a repeat and the timeout, and what --with adds, each written as a scenario file whose expectations are the model's prediction (events, what each badge hears, final states). Run them with badge-sim run.",
    exitStatus: {
      usage:
        'a wrong or missing option, a --quorum over --devices, more paths than the cap, or an --out folder that holds scenario files (give --force) or cannot be written (the message says which)',
    },
  },
  init: {
    term: 'init [options]',
    description:
      'Start a project: a scenario that passes, a fixtures file to edit, a vitest test using badge-sim/vitest and a GitHub Actions workflow; never writes over a file without --force.',
    exitStatus: {
      usage:
        'a wrong option, a --dir outside the project, or files that exist already: nothing is written; give --force to overwrite them, or --dir another folder',
    },
  },
} as const satisfies Record<string, CommandEntry>;

export type CommandName = keyof typeof COMMANDS;

/**
 * The command that arguments ask for: the first one that is not an option (the top level has
 * only --version and --help), or the one after `help` (`badge-sim help stub`).
 */
export function commandAskedFor(args: readonly string[]): CommandName | undefined {
  const operands = args.filter((arg) => !arg.startsWith('-'));
  const name = operands[0] === 'help' ? operands[1] : operands[0];
  return name !== undefined && Object.hasOwn(COMMANDS, name) ? (name as CommandName) : undefined;
}
