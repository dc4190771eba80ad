import { Command, InvalidArgumentError, type Option } from 'commander';
import {
  CLOCK_SCALE_MAX,
  CLOCK_SCALE_MIN,
  CONTROL_TOKEN_HEADER,
  controlTokenProblem,
  type EnvironmentName,
} from '../protocol/control-api.schema.ts';
import { JOURNAL_LIMIT_MAX } from '../protocol/journal.schema.ts';
import { RECORDING_LIMIT_DEFAULT, RECORDING_LIMIT_MAX } from '../protocol/recording.schema.ts';
import { CLIENT_ID_PATTERN } from '../protocol/token-api.schema.ts';
import {
  BADGE_ANSWER_TIMEOUT_MAX_MS,
  BADGE_ANSWER_TIMEOUT_MIN_MS,
} from '../server-stub/device-gateway.ts';
import { DEFAULT_SETTINGS } from '../server-stub/settings.ts';
import {
  choiceOption,
  durationOption,
  fail,
  integerOption,
  positiveNumberOption,
  wordOption,
} from './cli-errors.ts';
import { COMMANDS } from './commands.ts';
import { booleanFromEnv, fromEnv } from './env-options.ts';
import type { StubOptions } from './stub-options.ts';
import { tlsOptionsFrom } from './stub-tls-options.ts';

/**
 * `badge-sim stub`: its options (each a flag or a BADGE_SIM_ variable), checked together, then
 * `runStub` (cli/run-stub.ts) runs the stub they ask for.
 */
export function stubCommand(): Command {
  const command = new Command('stub').description(COMMANDS.stub.description);
  for (const options of [whatItServes, serviceSettings, controlAndRecording, tlsOptions])
    options(command);
  return command.addHelpText('after', HELP_AFTER).action(async (options: StubOptions) => {
    checkStubOptions(options);
    options.quiet ??= booleanFromEnv('BADGE_SIM_QUIET');
    // Loaded once the options are read: `stub --help` loads no more than its options need.
    const { runStub } = await import('./run-stub.ts');
    await runStub(options, tlsOptionsFrom(options));
  });
}

const HELP_AFTER =
  '\nEvery option can also come from the environment variable named after it\n(BADGE_SIM_PORT, BADGE_SIM_FIXTURES, …): the container image is configured that way.\n\nExamples:\n  badge-sim stub                      default fixtures, real time, port 8080\n  badge-sim stub --badges all --clock virtual\n                                      badges in the stub, watched and tapped at /_stub/ui/\n  badge-sim stub --clock virtual -p 0  time moves only with POST /_stub/clock/advance\n  badge-sim stub --generate 50 --seed 7\n  badge-sim stub --clock virtual --record session.jsonl\n                                      then: badge-sim record session.jsonl --to bug.scenario.yaml\n  badge-sim stub --tls --tls-dir ~/.badge-sim/tls\n                                      https:// and wss:// with a CA kept across restarts;\n                                      clients trust its file: NODE_EXTRA_CA_CERTS=<file>,\n                                      REQUESTS_CA_BUNDLE=<file>, curl --cacert <file>\n  badge-sim stub --tls-cert cert.pem --tls-key key.pem --tls-ca ca.pem\n';

/** Where it listens, its devices, ids and clock. */
function whatItServes(command: Command): Command {
  return command
    .addOption(fromEnv('--host <address>', 'address to listen on', 'HOST').default('127.0.0.1'))
    .addOption(
      fromEnv('-p, --port <port>', 'port to listen on (0 picks a free one)', 'PORT')
        .argParser(integerOption('--port', 0, 65535))
        .default(8080),
    )
    .addOption(
      fromEnv(
        '-f, --fixtures <file>',
        'fixtures file (YAML or JSON) with accounts, groups and devices',
        'FIXTURES',
      ),
    )
    .addOption(
      fromEnv(
        '--snapshot <file>',
        'start from a world snapshot (a file GET /_stub/snapshot wrote): its fixtures, clock, tasks, events, tokens and faults; with --badges, the badges it holds (?include=badges) carry on',
        'SNAPSHOT',
      ),
    )
    .addOption(
      fromEnv(
        '--generate <devices>',
        'generate fixtures with faker instead: one account with this many devices',
        'GENERATE',
      ).argParser(integerOption('--generate', 0, 100_000)),
    )
    .addOption(
      fromEnv(
        '--seed <n>',
        'seed of task and event ids and of tokens: with it they repeat from run to run, and the ids restart on a reset (tokens issued after one are new); without it they are random, new on each start and after each reset (also the seed of --generate, 0 if not given)',
        'SEED',
      ).argParser(integerOption('--seed')),
    )
    .addOption(
      fromEnv(
        '--clock <mode>',
        'virtual (moves only through the control API), real, or scaled',
        'CLOCK',
      )
        .argParser(choiceOption('--clock', ['virtual', 'real', 'scaled'] as const))
        .default('real'),
    )
    .addOption(
      fromEnv(
        '--scale <factor>',
        'speed of scaled time, e.g. 60 for a minute a second',
        'SCALE',
      ).argParser(positiveNumberOption('--scale')),
    );
}

/** The service's words, client ids and behaviours where the spec is silent. */
function serviceSettings(command: Command): Command {
  return command
    .addOption(
      fromEnv('--auth-scheme <word>', 'scheme word of the Authorization header', 'AUTH_SCHEME')
        .argParser(
          wordOption('--auth-scheme', /^[A-Za-z][A-Za-z0-9!#$%&'*+.^_`|~-]*$/, 'ServiceApiKey'),
        )
        .default(DEFAULT_SETTINGS.authScheme),
    )
    .addOption(
      fromEnv(
        '--brand-word <word>',
        'brand word of the device path (/<word>/api/v1/device/…), and of group URNs unless --urn-word is given',
        'BRAND_WORD',
      )
        .argParser(wordOption('--brand-word', /^[A-Za-z0-9_-]+$/, 'service'))
        .default(DEFAULT_SETTINGS.brandWord),
    )
    .addOption(
      fromEnv(
        '--urn-word <word>',
        'word of group URNs (urn:<word>-resource:name:group:<name>) when it is not the brand word',
        'URN_WORD',
      ).argParser(wordOption('--urn-word', /^[A-Za-z0-9_-]+$/, 'service')),
    )
    .addOption(clientIdOption('pro', 'cli'))
    .addOption(clientIdOption('pro', 'sdk'))
    .addOption(clientIdOption('qa', 'cli'))
    .addOption(clientIdOption('qa', 'sdk'))
    .addOption(
      fromEnv(
        '--unknown-client-ids <policy>',
        "a client id no environment's token endpoint knows: refuse (401 invalid_client) or accept (another environment's id is refused either way)",
        'UNKNOWN_CLIENT_IDS',
      )
        .argParser(choiceOption('--unknown-client-ids', ['refuse', 'accept'] as const))
        .default(DEFAULT_SETTINGS.unknownClientIds),
    )
    .addOption(
      fromEnv(
        '--unknown-fields <policy>',
        'fields the spec does not list: reject (400) or ignore',
        'UNKNOWN_FIELDS',
      )
        .argParser(choiceOption('--unknown-fields', ['reject', 'ignore'] as const))
        .default(DEFAULT_SETTINGS.unknownFields),
    )
    .addOption(
      fromEnv(
        '--cancel-events <kind>',
        'events of a DELETE: end-cancelled, end-normal or none',
        'CANCEL_EVENTS',
      )
        .argParser(
          choiceOption('--cancel-events', ['end-cancelled', 'end-normal', 'none'] as const),
        )
        .default(DEFAULT_SETTINGS.cancelEvents),
    )
    .addOption(
      fromEnv(
        '--badge-answer-timeout <duration>',
        'how long a virtual clock waits for a badge that does not answer before it goes on without it (1ms to 60s)',
        'BADGE_ANSWER_TIMEOUT',
      )
        .argParser(badgeAnswerTimeoutOption)
        .default(DEFAULT_SETTINGS.badgeAnswerTimeoutMs, '2s'),
    )
    .addOption(
      fromEnv(
        '--journal-limit <entries>',
        `requests the journal keeps (GET /_stub/journal); past it the oldest are dropped (1 to ${JOURNAL_LIMIT_MAX})`,
        'JOURNAL_LIMIT',
      )
        .argParser(integerOption('--journal-limit', 1, JOURNAL_LIMIT_MAX))
        .default(DEFAULT_SETTINGS.journalLimit),
    );
}

/** The control API's lock, the recording, the badges run in the stub, the request log. */
function controlAndRecording(command: Command): Command {
  return (
    command
      // No argParser: commander would print a refused value, and this one is a secret.
      .addOption(
        fromEnv(
          '--control-token <token>',
          `lock the control API (all of /_stub but /_stub/health, /_stub/openapi.json and /_stub/asyncapi.json): callers send the header ${CONTROL_TOKEN_HEADER}: <token>. Prefer the variable: a flag shows in the process list`,
          'CONTROL_TOKEN',
        ),
      )
      .addOption(
        fromEnv(
          '--record <file>',
          'write everything that happens to this file as JSON lines, as it happens: requests to the emulated APIs (secrets masked), badges connecting, dropping, tapping, clock changes, analytic events; `badge-sim record <file> --to x.yaml` makes a scenario of it (GET /_stub/recording has it too)',
          'RECORD',
        ),
      )
      .addOption(
        fromEnv(
          '--trace <file>',
          'write a trace of the session to this file (gzip JSON lines): the recording, with each alert after each change; closed as the stub stops',
          'TRACE',
        ),
      )
      .addOption(
        fromEnv(
          '--record-limit <n>',
          'records the recording keeps at most; past it they are dropped and counted (a `capped` record says when)',
          'RECORD_LIMIT',
        )
          .argParser(
            integerOption('--record-limit (BADGE_SIM_RECORD_LIMIT)', 1, RECORDING_LIMIT_MAX),
          )
          .default(RECORDING_LIMIT_DEFAULT),
      )
      // Not .env(): commander would turn BADGE_SIM_QUIET=false into true. Read in runStub.
      .addOption(
        fromEnv(
          '--badges [group]',
          "run virtual badges in the stub itself: every device of the fixtures (no value, or 'all') or only a group's; the dashboard at /_stub/ui/ shows their state and can tap them and take them offline",
          'BADGES',
        ),
      )
      .option('-q, --quiet', 'do not print a line per request (env: BADGE_SIM_QUIET=true|false)')
  );
}

/** HTTPS: an issued certificate, or a given one. */
function tlsOptions(command: Command): Command {
  return command
    .option(
      '--tls',
      'HTTPS only (and wss:// for badges) on the port, with a certificate issued at start by a local CA whose file is printed for clients to trust (env: BADGE_SIM_TLS=true|false)',
    )
    .addOption(
      fromEnv(
        '--tls-dir <dir>',
        'keep the local CA in this folder (ca.pem, ca-key.pem) and reuse it on every start, so clients keep trusting it (default: a new CA each start, its key never written)',
        'TLS_DIR',
      ),
    )
    .addOption(
      fromEnv(
        '--tls-names <names>',
        'more host names or addresses for the issued certificate, comma-separated (it always has localhost, 127.0.0.1, ::1, this host name and --host)',
        'TLS_NAMES',
      ),
    )
    .addOption(
      fromEnv(
        '--tls-cert <file>',
        'serve this certificate (PEM, then any intermediates) instead of issuing one; with --tls-key',
        'TLS_CERT',
      ),
    )
    .addOption(fromEnv('--tls-key <file>', 'the unencrypted PEM key of --tls-cert', 'TLS_KEY'))
    .addOption(
      fromEnv(
        '--tls-ca <file>',
        'the CA (PEM) that issued --tls-cert, printed for clients to trust',
        'TLS_CA',
      ),
    );
}

/**
 * `--pro-sdk-client-id` and its kin: a client id of one environment's token endpoint, for a
 * client that has the original's built in. Given, it wins over the fixtures' `client_ids`.
 */
function clientIdOption(environment: EnvironmentName, kind: 'cli' | 'sdk'): Option {
  const flag = `--${environment}-${kind}-client-id`;
  const variable = `${environment}_${kind}_CLIENT_ID`.toUpperCase();
  const tool = kind === 'cli' ? 'command-line tool' : 'SDK';
  return fromEnv(
    `${flag} <id>`,
    `client id of the ${tool} in ${environment} (default: the fixtures' client_ids.${environment}.${kind}, else ${DEFAULT_SETTINGS.environments[environment][`${kind}ClientId`]})`,
    variable,
  ).argParser((value: string) => {
    if (!CLIENT_ID.test(value))
      throw new InvalidArgumentError(
        `${flag} (BADGE_SIM_${variable}) must be 1 to 128 visible ASCII characters, no spaces.`,
      );
    return value;
  });
}
const CLIENT_ID = new RegExp(CLIENT_ID_PATTERN);

/** A duration from 1 ms to 60 s (the gateway's bounds); the error names the flag and its variable. */
function badgeAnswerTimeoutOption(value: string): number {
  const ms = durationOption('--badge-answer-timeout (BADGE_SIM_BADGE_ANSWER_TIMEOUT)')(value);
  if (!(ms >= BADGE_ANSWER_TIMEOUT_MIN_MS && ms <= BADGE_ANSWER_TIMEOUT_MAX_MS))
    throw new InvalidArgumentError(
      '--badge-answer-timeout (BADGE_SIM_BADGE_ANSWER_TIMEOUT) must be from 1ms to 60s.',
    );
  return ms;
}

/** The options that only make sense together, checked before anything loads or listens. */
function checkStubOptions(options: StubOptions): void {
  // Messages name the flag and its variable: a container is configured by the variables.
  if (options.clock === 'scaled' && options.scale === undefined)
    fail('--clock scaled (BADGE_SIM_CLOCK) needs --scale <factor> (BADGE_SIM_SCALE), e.g. 60.');
  if (options.clock !== 'scaled' && options.scale !== undefined)
    fail(
      `--scale (BADGE_SIM_SCALE) is for --clock scaled, and the clock is ${options.clock} (BADGE_SIM_CLOCK).`,
    );
  // The bounds of PUT /_stub/clock (I1): a scale of 1e-9 or 2e6 is no clock either way.
  if (
    options.scale !== undefined &&
    !(options.scale >= CLOCK_SCALE_MIN && options.scale <= CLOCK_SCALE_MAX)
  )
    fail(
      `--scale (BADGE_SIM_SCALE) must be from ${CLOCK_SCALE_MIN} to ${CLOCK_SCALE_MAX} times as fast as real time (it is ${options.scale}).`,
    );
  if (options.fixtures && options.generate !== undefined)
    fail(
      'give either --fixtures (BADGE_SIM_FIXTURES) or --generate (BADGE_SIM_GENERATE), not both.',
    );
  if (options.snapshot !== undefined && (options.fixtures || options.generate !== undefined))
    fail(
      '--snapshot (BADGE_SIM_SNAPSHOT) brings its own fixtures: give no --fixtures or --generate.',
    );
  if (options.controlToken !== undefined) {
    const problem = controlTokenProblem(options.controlToken);
    if (problem) fail(`--control-token (BADGE_SIM_CONTROL_TOKEN) ${problem}.`);
  }
}
