import { clearLine } from 'node:readline';
import type { FixtureBehaviour } from '../fixtures/fixtures.schema.ts';
import { formatDuration } from '../protocol/duration.ts';
import type { FleetHandle } from '../simulator/fleet-options.ts';
import type { WorkerFleetHandle } from '../simulator/fleet-workers.ts';
import { TtsUnavailableError } from '../simulator/tts/text-to-speech.ts';
import { fail } from './cli-errors.ts';
import { checkedControlToken } from './control-access.ts';
import type { DevicesOptions } from './devices-options.ts';
import {
  connections,
  type FleetView,
  fleetView,
  logEveryBadge,
  statesText,
  watchConnections,
} from './fleet-log.ts';
import { checkStub } from './stub-check.ts';

/** Above this many badges, the log is a periodic count by state, not a line per event. */
const DETAILED_LOG_LIMIT = 50;

/** What the command made of its duration and behaviour flags. */
export interface DevicesRun {
  behaviour: FixtureBehaviour | undefined;
  stopAfter: number | undefined;
  waitMs: number;
  giveUpMs: number | undefined;
}

/** A log line on stdout; on a terminal, the live line on stderr is cleared first. */
type Log = (line: string) => void;

/**
 * Runs `badge-sim devices` once its options are checked: waits for the stub, starts the fleet,
 * shows its progress until every badge is connected, then logs what the badges do and what
 * becomes of the stub until Ctrl+C, --for or --give-up-after stops it with a summary.
 */
export async function runDevices(options: DevicesOptions, run: DevicesRun): Promise<void> {
  const started = performance.now();
  const { FleetError } = await import('../simulator/fleet.ts');
  const fleet = await startDevicesFleet(options, run);
  const view = fleetView(fleet);
  const total = view.total;
  const elapsed = () => formatDuration(performance.now() - started);
  // A live line on a terminal (stderr); plain lines in the log when not one.
  const live = process.stderr.isTTY === true;
  const log: Log = (line) => {
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
      if (running && run.giveUpMs !== undefined && ms >= run.giveUpMs)
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
    `${total} badges online${threads} against ${options.stub}${run.behaviour ? ` (behaviour ${JSON.stringify(run.behaviour)})` : ''}. Press Ctrl+C to stop.`,
  );
  const periodic =
    detailed || options.quiet
      ? undefined
      : setInterval(() => log(`${elapsed().padStart(6)}  ${statesText(view.activity())}`), 5_000);
  const stop = stopper(view, run.behaviour, log, elapsed, () => {
    if (periodic) clearInterval(periodic);
    clearInterval(watch);
  });
  // From here the watch shows connections, and a stub lost too long stops the fleet.
  running = true;
  process.once('SIGINT', () => void stop('SIGINT'));
  process.once('SIGTERM', () => void stop('SIGTERM'));
  if (run.stopAfter !== undefined)
    setTimeout(() => void stop(`--for ${options.for}`), run.stopAfter);
}

/** The stub waited for (it may be starting at the same time) and the fleet started on it. */
async function startDevicesFleet(
  options: DevicesOptions,
  run: DevicesRun,
): Promise<FleetHandle | WorkerFleetHandle> {
  // The simulator (xstate, ws) is loaded once the options are known to be good.
  const { FleetError, startFleet } = await import('../simulator/fleet.ts');
  const controlToken = checkedControlToken(options.controlToken);
  try {
    // Started at the same time as its stub: wait for it rather than fail.
    let said = false;
    await checkStub(options.stub, controlToken, {
      waitMs: run.waitMs,
      onWaiting(problem) {
        if (said) return;
        said = true;
        process.stdout.write(
          `waiting for the stub at ${options.stub} (${problem}): retrying for up to ${formatDuration(run.waitMs)}, Ctrl+C to stop\n`,
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
      behaviour: run.behaviour,
      tts: options.tts,
      seed: options.seed,
    };
    return options.workers === undefined
      ? await startFleet(fleetOptions)
      : await startFleet({ ...fleetOptions, workers: options.workers });
  } catch (error) {
    if (error instanceof FleetError || error instanceof TtsUnavailableError) fail(error.message);
    throw error;
  }
}

/**
 * What stops the fleet, once: `quiet` ends the timers, the threads' latest numbers are read
 * (if they answer soon), the summary is logged, the fleet closed and the process ends.
 */
function stopper(
  view: FleetView,
  behaviour: FixtureBehaviour | undefined,
  log: Log,
  elapsed: () => string,
  quiet: () => void,
): (why: string, code?: number) => Promise<void> {
  let stopping = false;
  return async (why, code = 0) => {
    if (stopping) return;
    stopping = true;
    quiet();
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
    log(`\n${why}: stopping ${view.total} badges after ${elapsed()}`);
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
}
