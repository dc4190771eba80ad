import { clearLine } from 'node:readline';
import { Command } from 'commander';
import {
  BATTERY_DRAIN_MAX,
  BATTERY_DRAIN_MIN,
  type FixtureBehaviour,
  MAX_TAP_COPIES,
} from '../fixtures/fixtures.schema.ts';
import { flakyEveryProblem } from '../fixtures/flaky-every.ts';
import { formatDuration, parseDuration, parseDurationRange } from '../protocol/duration.ts';
import { FleetActivity, type FleetActivityCounts } from '../simulator/fleet-activity.ts';
import type { FleetHandle, FleetSummary } from '../simulator/fleet-options.ts';
import { MAX_WORKERS, type WorkerFleetHandle } from '../simulator/fleet-workers.ts';
import { type Shard, shardOption } from '../simulator/shard.ts';
import { TTS_NAMES, type TtsName, TtsUnavailableError } from '../simulator/tts/text-to-speech.ts';
import {
  choiceOption,
  fail,
  integerOption,
  numberOption,
  probabilityOption,
} from './cli-errors.ts';
import { COMMANDS } from './commands.ts';
import { checkedControlToken, controlTokenOption } from './control-access.ts';
import { checkStub } from './stub-check.ts';

interface DevicesOptions {
  stub: string;
  controlToken?: string;
  count?: number;
  shard?: Shard;
  workers?: number;
  group?: string;
  account?: string;
  ackAfter?: string;
  ackOnRepeat?: number;
  offlineAt?: string;
  offlineFor?: string;
  vanishAt?: string;
  vanishFor?: string;
  flakyEvery?: string;
  flakyDown?: string;
  tapLose?: number;
  tapDelay?: string;
  tapDelayChance?: number;
  tapDuplicate?: number;
  tapDuplicateChance?: number;
  tapGap?: string;
  dropOnPlay?: number;
  dropChance?: number;
  dropAfter?: string;
  dropFor?: string;
  batteryFrom?: number;
  batteryDrain?: number;
  tts: TtsName;
  seed: number;
  for?: string;
  wait: string;
  giveUpAfter: string;
  quiet?: boolean;
}

/** Above this many badges, the log is a periodic count by state, not a line per event. */
const DETAILED_LOG_LIMIT = 50;

export function devicesCommand(): Command {
  return (
    new Command('devices')
      // A refused option or argument exits 2, as in every command: cli/badge-sim.ts.
      .description(COMMANDS.devices.description)
      .option('--stub <url>', 'base URL of the stub', 'http://127.0.0.1:8080')
      .addOption(controlTokenOption())
      .option(
        '-n, --count <n>',
        'how many badges (the first of the selection)',
        integerOption('--count', 1, 1_000_000),
      )
      .option('-g, --group <name>', "only the devices of this group (as in the stub's fixtures)")
      .option('--account <subscriber-id>', 'only the devices of this account')
      .option(
        '--shard <i/n>',
        'only the i-th of n slices of the selection: n processes or machines drive one stub between them, each device in one (the stub refuses a device another fleet holds)',
        shardOption,
      )
      .option(
        '--workers <n>',
        `run the badges in n worker threads (1 to ${MAX_WORKERS}), so a large fleet uses several cores; the log is then counts, not a line per badge`,
        integerOption('--workers', 1, MAX_WORKERS),
      )
      .option(
        '--ack-after <duration>',
        "tap this long after an alert first plays: '12s', or a range '5s..40s'",
      )
      .option(
        '--ack-on-repeat <n>',
        'tap when play number N starts (0 the first play)',
        integerOption('--ack-on-repeat', 0, 10_000),
      )
      .option('--offline-at <duration>', 'drop off the network this long after starting')
      .option('--offline-for <duration>', 'come back this long after dropping (with --offline-at)')
      .option(
        '--vanish-at <range>',
        "the network vanishes without a close this long after starting (the stub still holds the old connection): '40s' or '10s..60s'",
      )
      .option(
        '--vanish-for <range>',
        'reconnect on a new socket with the same id this long after vanishing (with --vanish-at)',
      )
      .option(
        '--flaky-every <range>',
        "drop the connection every so often: '30s..90s' (with --flaky-down)",
      )
      .option('--flaky-down <range>', "stay down this long each time: '2s..10s'")
      .option(
        '--tap-lose <chance>',
        'lose this share of taps on the way (0..1): the stub never hears them',
        probabilityOption('--tap-lose'),
      )
      .option('--tap-delay <range>', "button frames leave this late: '3s', or a range '1s..5s'")
      .option(
        '--tap-delay-chance <chance>',
        'only this share of taps is delayed (default all)',
        probabilityOption('--tap-delay-chance'),
      )
      .option(
        '--tap-duplicate <n>',
        'button frames arrive n times (2 to 10)',
        integerOption('--tap-duplicate', 2, MAX_TAP_COPIES),
      )
      .option(
        '--tap-duplicate-chance <chance>',
        'only this share of taps is duplicated (default all)',
        probabilityOption('--tap-duplicate-chance'),
      )
      .option('--tap-gap <duration>', 'time between the copies of a duplicated tap (default 0)')
      .option(
        '--drop-on-play <n>',
        "drop off the network during the badge's Nth alert play (with --drop-for)",
        integerOption('--drop-on-play', 1, 1_000_000),
      )
      .option(
        '--drop-chance <chance>',
        'drop during this share of alert plays (with --drop-for)',
        probabilityOption('--drop-chance'),
      )
      .option('--drop-after <range>', "this long into the play: '2s' or '0s..5s' (default 0s)")
      .option('--drop-for <range>', "stay off this long, then come back: '20s' or '10s..30s'")
      .option(
        '--battery-from <level>',
        'battery level at start, % (with --battery-drain)',
        integerOption('--battery-from', 0, 100),
      )
      .option(
        '--battery-drain <rate>',
        `the battery drains this many % per minute (${BATTERY_DRAIN_MIN} to ${BATTERY_DRAIN_MAX}), reported in state frames`,
        numberOption('--battery-drain', BATTERY_DRAIN_MIN, BATTERY_DRAIN_MAX),
      )
      .option(
        '--tts <engine>',
        `text-to-speech: ${TTS_NAMES.join(', ')}`,
        choiceOption('--tts', TTS_NAMES),
        'estimate',
      )
      .option('--seed <n>', 'seed of the behaviours’ random draws', integerOption('--seed'), 0)
      .option('--for <duration>', 'stop after this much real time, e.g. 2m')
      .option(
        '--wait <duration>',
        'at start, wait this long for the stub to answer (0: not)',
        '30s',
      )
      .option(
        '--give-up-after <duration>',
        "once running, stop (exit 1) when the stub has been unreachable this long ('never': keep trying)",
        '10m',
      )
      .option('-q, --quiet', 'only the progress line and the summary')
      .addHelpText(
        'after',
        `
Behaviours given here apply to badges whose fixture declares none.

Badges whose connection drops (the stub restarted or died) reconnect on their own, 100 ms
doubling to 5 s between tries; the fleet keeps running and says so, for up to
--give-up-after (10m) of a stub that stays unreachable, then stops with exit code 1. Lost
while the badges first connect, the stub is waited for up to 60 s (and 10 ms a badge), then
the command fails (exit 2). A refused hello or a device connected elsewhere does not
reconnect.

Device faults are drawn from --seed: the same seed gives the same lost, delayed and
duplicated taps and the same drops.

Examples:
  badge-sim devices --group Nurses --ack-after 5s..40s
  badge-sim devices --ack-after 5s..20s --tap-lose 0.05 --tap-duplicate 2 --tap-duplicate-chance 0.1
  badge-sim devices --drop-chance 0.1 --drop-after 0s..5s --drop-for 10s..30s --battery-from 30 --battery-drain 1
  badge-sim devices --stub http://127.0.0.1:8080 --count 500 --flaky-every 30s..90s --flaky-down 2s..10s
  badge-sim devices --stub http://stub:8080 --shard 2/4                  a quarter of the devices (one of four processes)
  badge-sim devices --count 50000 --workers 2 --ack-after 5s..60s        a large fleet on both cores
  badge-sim devices --group Security --tts say       speak aloud through festival
  badge-sim devices --group Nurses --ack-after 5s --vanish-at 30s --vanish-for 10s..20s
`,
      )
      .action(runDevices)
  );
}

function behaviourFrom(options: DevicesOptions): FixtureBehaviour | undefined {
  const behaviour: FixtureBehaviour = {};
  if (options.ackAfter !== undefined && options.ackOnRepeat !== undefined) {
    fail('give either --ack-after or --ack-on-repeat, not both.');
  }
  if (options.ackAfter !== undefined) {
    if (!parseDurationRange(options.ackAfter))
      fail(
        `--ack-after '${options.ackAfter}' is not a duration such as 12s or a range such as 5s..40s.`,
      );
    behaviour.ack = { after: options.ackAfter };
  }
  if (options.ackOnRepeat !== undefined) behaviour.ack = { on_repeat: options.ackOnRepeat };
  if (options.offlineFor !== undefined && options.offlineAt === undefined)
    fail('--offline-for needs --offline-at.');
  if (options.offlineAt !== undefined) {
    for (const [flag, value] of [
      ['--offline-at', options.offlineAt],
      ['--offline-for', options.offlineFor],
    ] as const) {
      if (value !== undefined && parseDuration(value) === undefined)
        fail(`${flag} '${value}' is not a duration such as 40s or 2m.`);
    }
    behaviour.offline = [
      { at: options.offlineAt, ...(options.offlineFor ? { for: options.offlineFor } : {}) },
    ];
  }
  if (options.vanishFor !== undefined && options.vanishAt === undefined)
    fail('--vanish-for needs --vanish-at.');
  if (options.vanishAt !== undefined) {
    for (const [flag, value] of [
      ['--vanish-at', options.vanishAt],
      ['--vanish-for', options.vanishFor],
    ] as const) {
      if (value !== undefined && !parseDurationRange(value))
        fail(`${flag} '${value}' is not a duration or a range such as 10s..60s.`);
    }
    behaviour.vanish = [
      { at: options.vanishAt, ...(options.vanishFor ? { for: options.vanishFor } : {}) },
    ];
  }
  if ((options.flakyEvery === undefined) !== (options.flakyDown === undefined))
    fail('--flaky-every and --flaky-down go together.');
  if (options.flakyEvery !== undefined && options.flakyDown !== undefined) {
    for (const [flag, value] of [
      ['--flaky-every', options.flakyEvery],
      ['--flaky-down', options.flakyDown],
    ] as const) {
      if (!parseDurationRange(value))
        fail(`${flag} '${value}' is not a duration or a range such as 2s..10s.`);
    }
    const tooShort = flakyEveryProblem(options.flakyEvery);
    if (tooShort) fail(`--flaky-every ${tooShort}.`);
    behaviour.flaky = { every: options.flakyEvery, down: options.flakyDown };
  }
  Object.assign(behaviour, deviceFaultsFrom(options));
  return Object.keys(behaviour).length > 0 ? behaviour : undefined;
}

/** The tap, drop and battery faults the flags ask for; each refusal names the flag to fix. */
function deviceFaultsFrom(options: DevicesOptions): FixtureBehaviour {
  const tap = tapFaultsFrom(options);
  const drop = dropFrom(options);
  const battery = batteryFrom(options);
  return { ...(tap && { tap }), ...(drop && { drop }), ...(battery && { battery }) };
}

/** A duration or range flag's value, or a message saying what to write. */
function rangeFlag(flag: string, value: string, example: string): string {
  if (!parseDurationRange(value))
    fail(`${flag} '${value}' is not a duration or a range low..high such as ${example}.`);
  return value;
}

/** Refuses a flag given without the one it qualifies. */
function needs(given: unknown, flag: string, other: string): void {
  if (given !== undefined) fail(`${flag} needs ${other}.`);
}

const chance = (p: number | undefined) => (p === undefined ? {} : { chance: p });

function tapFaultsFrom(options: DevicesOptions): FixtureBehaviour['tap'] {
  if (options.tapDelay === undefined)
    needs(options.tapDelayChance, '--tap-delay-chance', '--tap-delay');
  if (options.tapDuplicate === undefined) {
    needs(options.tapDuplicateChance, '--tap-duplicate-chance', '--tap-duplicate');
    needs(options.tapGap, '--tap-gap', '--tap-duplicate');
  }
  if (options.tapGap !== undefined && parseDuration(options.tapGap) === undefined)
    fail(`--tap-gap '${options.tapGap}' is not a duration such as 500ms or 2s.`);
  const tap: NonNullable<FixtureBehaviour['tap']> = {};
  if (options.tapLose !== undefined) tap.lose = { chance: options.tapLose };
  if (options.tapDelay !== undefined)
    tap.delay = {
      by: rangeFlag('--tap-delay', options.tapDelay, '1s..5s'),
      ...chance(options.tapDelayChance),
    };
  if (options.tapDuplicate !== undefined)
    tap.duplicate = {
      times: options.tapDuplicate,
      ...(options.tapGap === undefined ? {} : { gap: options.tapGap }),
      ...chance(options.tapDuplicateChance),
    };
  return Object.keys(tap).length > 0 ? tap : undefined;
}

function dropFrom(options: DevicesOptions): FixtureBehaviour['drop'] {
  if (options.dropOnPlay !== undefined && options.dropChance !== undefined)
    fail('give either --drop-on-play or --drop-chance, not both.');
  if (options.dropOnPlay === undefined && options.dropChance === undefined) {
    needs(options.dropFor, '--drop-for', '--drop-on-play or --drop-chance');
    needs(options.dropAfter, '--drop-after', '--drop-on-play or --drop-chance');
    return undefined;
  }
  if (options.dropFor === undefined) fail('--drop-on-play and --drop-chance need --drop-for.');
  return {
    ...(options.dropOnPlay === undefined ? {} : { on_play: options.dropOnPlay }),
    ...chance(options.dropChance),
    ...(options.dropAfter === undefined
      ? {}
      : { after: rangeFlag('--drop-after', options.dropAfter, '0s..5s') }),
    for: rangeFlag('--drop-for', options.dropFor, '10s..30s'),
  };
}

function batteryFrom(options: DevicesOptions): FixtureBehaviour['battery'] {
  if (options.batteryDrain === undefined) {
    needs(options.batteryFrom, '--battery-from', '--battery-drain');
    return undefined;
  }
  return {
    drain: options.batteryDrain,
    ...(options.batteryFrom === undefined ? {} : { from: options.batteryFrom }),
  };
}

async function runDevices(options: DevicesOptions): Promise<void> {
  const behaviour = behaviourFrom(options);
  const stopAfter = options.for === undefined ? undefined : parseDuration(options.for);
  if (options.for !== undefined && stopAfter === undefined)
    fail(`--for '${options.for}' is not a duration such as 2m.`);
  const waitMs = parseDuration(options.wait);
  if (waitMs === undefined) fail(`--wait '${options.wait}' is not a duration such as 30s.`);
  const giveUpMs = options.giveUpAfter === 'never' ? undefined : parseDuration(options.giveUpAfter);
  if (options.giveUpAfter !== 'never' && !(giveUpMs !== undefined && giveUpMs > 0))
    fail(`--give-up-after '${options.giveUpAfter}' is not 'never' or a duration such as 10m.`);
  const started = performance.now();
  // The simulator (xstate, ws) is loaded once the options are known to be good.
  const { FleetError, startFleet } = await import('../simulator/fleet.ts');
  const controlToken = checkedControlToken(options.controlToken);
  let fleet: FleetHandle | WorkerFleetHandle;
  try {
    // Started at the same time as its stub: wait for it rather than fail.
    let said = false;
    await checkStub(options.stub, controlToken, {
      waitMs,
      onWaiting(problem) {
        if (said) return;
        said = true;
        process.stdout.write(
          `waiting for the stub at ${options.stub} (${problem}): retrying for up to ${formatDuration(waitMs)}, Ctrl+C to stop\n`,
        );
      },
    });
    const fleetOptions = {
      stub: options.stub,
      controlToken,
      count: options.count,
      shard: options.shard,
      group: options.group,
      subscriberId: options.account,
      behaviour,
      tts: options.tts,
      seed: options.seed,
    };
    fleet =
      options.workers === undefined
        ? await startFleet(fleetOptions)
        : await startFleet({ ...fleetOptions, workers: options.workers });
  } catch (error) {
    if (error instanceof FleetError || error instanceof TtsUnavailableError) fail(error.message);
    throw error;
  }
  const view = fleetView(fleet);
  const total = view.total;
  const elapsed = () => formatDuration(performance.now() - started);
  // A live line on a terminal (stderr); plain lines in the log when not one.
  const live = process.stderr.isTTY === true;
  const log = (line: string) => {
    if (live) {
      process.stderr.write('\r');
      clearLine(process.stderr, 1);
    }
    process.stdout.write(`${line}\n`);
  };
  // A line per badge event for a small fleet in this thread; counts otherwise.
  const detailed = 'badges' in fleet && !options.quiet && total <= DETAILED_LOG_LIMIT;
  if (detailed && 'badges' in fleet)
    logEveryBadge(fleet, (line) => log(`${elapsed().padStart(6)}  ${line}`));

  // One watch from start to end: the progress line, and what becomes of the stub.
  let running = false;
  const watch = watchConnections(view, {
    live,
    line: (summary) =>
      running
        ? live
          ? connections(summary)
          : undefined
        : `connected ${summary.online.toLocaleString('en')}/${total.toLocaleString('en')}` +
          (summary.reconnecting > 0 ? ` · ${connections(summary)}` : ' '.repeat(8)),
    log: (line) => log(`${elapsed().padStart(6)}  ${line}`),
    lostFor: (ms) => {
      if (running && giveUpMs !== undefined && ms >= giveUpMs)
        void stop(
          `the stub has been unreachable for ${formatDuration(ms)} (--give-up-after ${options.giveUpAfter})`,
          1,
        );
    },
  });
  try {
    await view.waitUntilConnected(total, 60_000 + total * 10);
  } catch (error) {
    clearInterval(watch);
    process.stderr.write('\n');
    await view.close();
    if (error instanceof FleetError) fail(error.message);
    throw error;
  }
  process.stderr.write(
    `\rconnected ${total.toLocaleString('en')}/${total.toLocaleString('en')} in ${elapsed()}\n`,
  );
  const threads = 'workers' in fleet ? ` in ${fleet.workers} worker threads` : '';
  log(
    `${total} badges online${threads} against ${options.stub}${behaviour ? ` (behaviour ${JSON.stringify(behaviour)})` : ''}. Press Ctrl+C to stop.`,
  );

  const counts = () => statesText(view.activity());
  const periodic =
    detailed || options.quiet
      ? undefined
      : setInterval(() => log(`${elapsed().padStart(6)}  ${counts()}`), 5_000);

  let stopping = false;
  const stop = async (why: string, code = 0) => {
    if (stopping) return;
    stopping = true;
    if (periodic) clearInterval(periodic);
    clearInterval(watch);
    // The threads' latest numbers, if they answer soon (a wedged thread must not hold Ctrl+C).
    let refreshGuard: NodeJS.Timeout | undefined;
    await Promise.race([
      view.refresh().catch(() => undefined),
      new Promise((resolve) => {
        refreshGuard = setTimeout(resolve, 2_000);
      }),
    ]);
    clearTimeout(refreshGuard);
    const activity = view.activity();
    log(`\n${why}: stopping ${total} badges after ${elapsed()}`);
    log(`  states now     ${statesText(activity)}`);
    const summary = view.summary();
    log(`  connections    ${connections(summary)}; ${summary.reconnects} reconnects`);
    log(
      `  alerts heard   ${activity.alertPlays} plays, ${activity.broadcasts} broadcasts, ${activity.speech} spoken replies`,
    );
    log(
      `  taps sent      ${activity.taps} by the badges, ${activity.controlTaps} through the control API`,
    );
    if (behaviour?.tap) {
      const { lost, delayed, duplicated } = activity.tapFaults;
      log(`  taps faulted   ${lost} frames lost, ${delayed} delayed, ${duplicated} duplicated`);
    }
    if (activity.errors > 0)
      log(`  stub errors    ${activity.errors} (first: ${activity.firstError})`);
    await view.close();
    process.exit(code);
  };
  // From here the watch shows connections, and a stub lost too long stops the fleet.
  running = true;
  process.once('SIGINT', () => void stop('SIGINT'));
  process.once('SIGTERM', () => void stop('SIGTERM'));
  if (stopAfter !== undefined) setTimeout(() => void stop(`--for ${options.for}`), stopAfter);
}

/**
 * Watches the fleet's connections every 250 ms until cleared: the progress `line` (on stderr,
 * rewritten in place; none when it gives undefined), a log line when the stub is lost, every
 * 5 s while it stays lost and when every badge is back, and `lostFor` with how long it has
 * been lost. The timer also keeps the process running while every badge waits to reconnect.
 */
function watchConnections(
  view: FleetView,
  watch: {
    live: boolean;
    line(summary: FleetSummary): string | undefined;
    log(line: string): void;
    lostFor(ms: number): void;
  },
): NodeJS.Timeout {
  let outage: { since: number; said: number } | undefined;
  return setInterval(() => {
    const now = performance.now();
    const summary = view.summary();
    const line = watch.line(summary);
    if (line !== undefined) {
      process.stderr.write(`\r${line}`);
      if (watch.live) clearLine(process.stderr, 1);
    }
    if (summary.reconnecting > 0) {
      if (!outage) {
        outage = { since: now - summary.downForMs, said: now };
        watch.log(`lost the stub, reconnecting: ${connections(summary)}`);
      } else if (now - outage.said >= 5_000) {
        outage.said = now;
        watch.log(`still reconnecting: ${connections(summary)}`);
      }
      watch.lostFor(now - outage.since);
    } else if (outage) {
      watch.log(
        `back online: ${connections(summary)} (the stub was unreachable ${formatDuration(now - outage.since)})`,
      );
      outage = undefined;
    }
  }, 250);
}

/** One face for a fleet in this thread and one in worker threads: numbers, not badges. */
interface FleetView {
  total: number;
  summary(): FleetSummary;
  activity(): FleetActivityCounts;
  refresh(): Promise<void>;
  waitUntilConnected(count: number, timeoutMs: number): Promise<void>;
  close(): Promise<void>;
}

function fleetView(fleet: FleetHandle | WorkerFleetHandle): FleetView {
  if (!('badges' in fleet)) return fleet;
  const activity = new FleetActivity(fleet.badges);
  return {
    total: fleet.badges.length,
    summary: () => fleet.summary(),
    activity: () => activity.counts(),
    refresh: async () => {},
    waitUntilConnected: (count, timeoutMs) => fleet.waitUntilConnected(count, timeoutMs),
    close: () => {
      activity.stop();
      return fleet.close();
    },
  };
}

/** "idle 12 · playing 3 · offline 1" */
function statesText(activity: FleetActivityCounts): string {
  return Object.entries(activity.states)
    .map(([state, n]) => `${state} ${n}`)
    .join(' · ');
}

/** A line for each clip a badge hears, each tap and each time it goes offline or online. */
function logEveryBadge(fleet: FleetHandle, log: (line: string) => void): void {
  for (const badge of fleet.badges) {
    const who = () => `${badge.user ?? badge.deviceId} (${badge.deviceId})`;
    badge.on('clipStarted', ({ clip }) => {
      const what =
        clip.kind === 'alert'
          ? `alert ${clip.taskId}${clip.repeat ? ` (play ${clip.repeat + 1})` : ''}`
          : clip.kind === 'speech'
            ? `${clip.cause}`
            : 'broadcast';
      log(`${who()} hears ${what}: "${clip.text}"`);
    });
    let counted = badge.taps;
    badge.on('tapped', ({ taskId }) => {
      // The badge decides the tap's fate as it sends it: read what became of it right after.
      setImmediate(() => {
        const now = badge.taps;
        const fate =
          now.lost > counted.lost && now.sent === counted.sent
            ? `is lost on the way: the stub never hears it (the badge believes it acknowledged ${taskId})`
            : now.delayed > counted.delayed
              ? `leaves late (fault): it will acknowledge ${taskId}`
              : now.duplicated > counted.duplicated
                ? `arrives more than once (fault): acknowledges ${taskId}`
                : `acknowledges ${taskId}`;
        counted = now;
        log(`${who()} taps the talk button: the tap ${fate}`);
      });
    });
    badge.on('controlTap', ({ taskId }) => {
      log(`${who()} is tapped through the control API: acknowledges ${taskId}`);
    });
    let last: string | undefined;
    badge.on('stateChanged', ({ state }) => {
      // Online after connecting; offline after being online. A failed reconnect attempt
      // (connecting, then offline again) is not news: the reconnecting line says it.
      if (
        (state === 'offline' &&
          last !== undefined &&
          last !== 'offline' &&
          last !== 'connecting') ||
        (state === 'idle' && last === 'connecting')
      ) {
        log(`${who()} is ${state === 'offline' ? 'offline' : 'online'}`);
      }
      last = state;
    });
  }
}

/** "120 of 200 online · 80 reconnecting (stub unreachable 3s)", and what else is not online. */
function connections(summary: FleetSummary): string {
  const n = (count: number) => count.toLocaleString('en');
  const parts = [`${n(summary.online)} of ${n(summary.total)} online`];
  if (summary.connecting > 0) parts.push(`${n(summary.connecting)} connecting`);
  if (summary.reconnecting > 0) {
    parts.push(
      `${n(summary.reconnecting)} reconnecting (stub unreachable ${formatDuration(summary.downForMs)})`,
    );
  }
  if (summary.offline > 0) {
    parts.push(
      `${n(summary.offline)} offline${summary.refused > 0 ? ` (${n(summary.refused)} refused)` : ''}`,
    );
  }
  return parts.join(' · ');
}
