import { Command } from 'commander';
import {
  BATTERY_DRAIN_MAX,
  BATTERY_DRAIN_MIN,
  MAX_TAP_COPIES,
} from '../fixtures/fixtures.schema.ts';
import { shardOption } from '../input/shard.ts';
import { parseDuration } from '../protocol/duration.ts';
import { MAX_WORKERS } from '../simulator/fleet-workers.ts';
import { TTS_NAMES } from '../simulator/tts/text-to-speech.ts';
import {
  choiceOption,
  fail,
  integerOption,
  numberOption,
  probabilityOption,
} from './cli-errors.ts';
import { COMMANDS } from './commands.ts';
import { controlTokenOption } from './control-access.ts';
import { behaviourFrom } from './devices-behaviour.ts';
import type { DevicesOptions } from './devices-options.ts';
import { runDevices } from './run-devices.ts';

/**
 * `badge-sim devices`: its options, checked and made a behaviour and durations, then
 * `runDevices` (cli/run-devices.ts) runs the fleet they ask for.
 */
export function devicesCommand(): Command {
  // A refused option or argument exits 2, as in every command: cli/badge-sim.ts.
  const command = new Command('devices').description(COMMANDS.devices.description);
  for (const options of [whichBadges, behaviours, deviceFaults, howItRuns]) options(command);
  return command.addHelpText('after', HELP_AFTER).action(async (options: DevicesOptions) => {
    const behaviour = behaviourFrom(options);
    const stopAfter = options.for === undefined ? undefined : parseDuration(options.for);
    if (options.for !== undefined && stopAfter === undefined)
      fail(`--for '${options.for}' is not a duration such as 2m.`);
    const waitMs = parseDuration(options.wait);
    if (waitMs === undefined) fail(`--wait '${options.wait}' is not a duration such as 30s.`);
    const giveUpMs =
      options.giveUpAfter === 'never' ? undefined : parseDuration(options.giveUpAfter);
    if (options.giveUpAfter !== 'never' && !(giveUpMs !== undefined && giveUpMs > 0))
      fail(`--give-up-after '${options.giveUpAfter}' is not 'never' or a duration such as 10m.`);
    await runDevices(options, { behaviour, stopAfter, waitMs, giveUpMs });
  });
}

const HELP_AFTER = `
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
`;

/** The stub, and which of its devices become badges, in which threads. */
function whichBadges(command: Command): Command {
  return command
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
    );
}

/** How the badges acknowledge and lose their network. */
function behaviours(command: Command): Command {
  return command
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
    .option('--flaky-down <range>', "stay down this long each time: '2s..10s'");
}

/** Taps lost, late or doubled; drops during plays; a draining battery. */
function deviceFaults(command: Command): Command {
  return command
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
    );
}

/** Speech, seed, how long it runs, how long it waits for the stub, what it logs. */
function howItRuns(command: Command): Command {
  return command
    .option(
      '--tts <engine>',
      `text-to-speech: ${TTS_NAMES.join(', ')}`,
      choiceOption('--tts', TTS_NAMES),
      'estimate',
    )
    .option('--seed <n>', 'seed of the behaviours’ random draws', integerOption('--seed'), 0)
    .option('--for <duration>', 'stop after this much real time, e.g. 2m')
    .option('--wait <duration>', 'at start, wait this long for the stub to answer (0: not)', '30s')
    .option(
      '--give-up-after <duration>',
      "once running, stop (exit 1) when the stub has been unreachable this long ('never': keep trying)",
      '10m',
    )
    .option('-q, --quiet', 'only the progress line and the summary');
}
