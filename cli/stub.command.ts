import { closeSync, openSync, readSync } from 'node:fs';
import { Command, InvalidArgumentError, Option } from 'commander';
import { formatTimestamp } from '../clock/clock.ts';
import { holdMessage } from '../clock/hold-message.ts';
import { DEFAULT_FIXTURES_FILE, FixtureError } from '../fixtures/load-fixtures.ts';
import {
  CLOCK_SCALE_MAX,
  CLOCK_SCALE_MIN,
  CONTROL_TOKEN_HEADER,
  controlTokenProblem,
  ENVIRONMENTS,
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
import type { StubHandle } from '../server-stub/start-stub.ts';
import type { StubTlsInfo, StubTlsOptions, TlsSetupError } from '../server-stub/tls.ts';
import { OPEN_FILES_HEADROOM, roomForBadges } from '../simulator/open-files.ts';
import {
  choiceOption,
  durationOption,
  fail,
  integerOption,
  positiveNumberOption,
  wordOption,
} from './cli-errors.ts';
import { COMMANDS } from './commands.ts';

interface StubOptions {
  host: string;
  port: number;
  fixtures?: string;
  snapshot?: string;
  generate?: number;
  seed?: number;
  controlToken?: string;
  clock: 'virtual' | 'real' | 'scaled';
  scale?: number;
  authScheme: string;
  brandWord: string;
  urnWord?: string;
  proCliClientId?: string;
  proSdkClientId?: string;
  qaCliClientId?: string;
  qaSdkClientId?: string;
  unknownClientIds: 'refuse' | 'accept';
  unknownFields: 'reject' | 'ignore';
  cancelEvents: 'end-cancelled' | 'end-normal' | 'none';
  badgeAnswerTimeout: number;
  journalLimit: number;
  record?: string;
  recordLimit: number;
  quiet?: boolean;
  badges?: string | true;
  tls?: boolean;
  tlsCert?: string;
  tlsKey?: string;
  tlsCa?: string;
  tlsDir?: string;
  tlsNames?: string;
}

/** Each TLS option's flag and variable, as messages name them. */
const TLS_FLAGS = {
  cert: '--tls-cert (BADGE_SIM_TLS_CERT)',
  key: '--tls-key (BADGE_SIM_TLS_KEY)',
  ca: '--tls-ca (BADGE_SIM_TLS_CA)',
  dir: '--tls-dir (BADGE_SIM_TLS_DIR)',
  names: '--tls-names (BADGE_SIM_TLS_NAMES)',
} as const;

/** An option that the environment variable BADGE_SIM_<name> can also give (the flag wins). */
function fromEnv(flags: string, description: string, name: string): Option {
  return new Option(flags, description).env(`BADGE_SIM_${name}`);
}

export function stubCommand(): Command {
  return (
    new Command('stub')
      .description(COMMANDS.stub.description)
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
          'start from a world snapshot (a file GET /_stub/snapshot wrote): its fixtures, clock, tasks, events, tokens and faults',
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
      )
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
      )
      // No argParser: commander would print a refused value, and this one is a secret.
      .addOption(
        fromEnv(
          '--control-token <token>',
          `lock the control API (all of /_stub but /_stub/health and /_stub/openapi.json): callers send the header ${CONTROL_TOKEN_HEADER}: <token>. Prefer the variable: a flag shows in the process list`,
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
      )
      .addHelpText(
        'after',
        '\nEvery option can also come from the environment variable named after it\n(BADGE_SIM_PORT, BADGE_SIM_FIXTURES, …): the container image is configured that way.\n\nExamples:\n  badge-sim stub                      default fixtures, real time, port 8080\n  badge-sim stub --badges all --clock virtual\n                                      badges in the stub, watched and tapped at /_stub/ui/\n  badge-sim stub --clock virtual -p 0  time moves only with POST /_stub/clock/advance\n  badge-sim stub --generate 50 --seed 7\n  badge-sim stub --clock virtual --record session.jsonl\n                                      then: badge-sim record session.jsonl --to bug.scenario.yaml\n  badge-sim stub --tls --tls-dir ~/.badge-sim/tls\n                                      https:// and wss:// with a CA kept across restarts;\n                                      clients trust its file: NODE_EXTRA_CA_CERTS=<file>,\n                                      REQUESTS_CA_BUNDLE=<file>, curl --cacert <file>\n  badge-sim stub --tls-cert cert.pem --tls-key key.pem --tls-ca ca.pem\n',
      )
      .action(runStub)
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

async function runStub(options: StubOptions): Promise<void> {
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
  options.quiet ??= booleanFromEnv('BADGE_SIM_QUIET');
  const tls = tlsOptionsFrom(options);
  // The server is loaded once the options are known to be good: a wrong one fails at once.
  const [{ startStub }, { openRecordingFile, writeRecordingTo }] = await Promise.all([
    import('../server-stub/start-stub.ts'),
    import('../server-stub/recording-file.ts'),
  ]);
  const recordFd =
    options.record === undefined ? undefined : openRecording(options.record, openRecordingFile);
  const fixtures =
    options.generate !== undefined
      ? (await import('../fixtures/generate-fixtures.ts')).generateFixtures({
          seed: options.seed ?? 0,
          devicesPerAccount: options.generate,
        })
      : (options.fixtures ?? DEFAULT_FIXTURES_FILE);
  let stub: StubHandle;
  try {
    stub = await startStub(
      {
        host: options.host,
        port: options.port,
        fixtures,
        snapshot: options.snapshot,
        seed: options.seed,
        clock: options.clock,
        clockScale: options.scale,
        controlToken: options.controlToken,
        badges: options.badges === true ? 'all' : options.badges,
        tls,
        record: options.record !== undefined,
        recordingLimit: options.recordLimit,
        settings: {
          authScheme: options.authScheme,
          brandWord: options.brandWord,
          urnWord: options.urnWord,
          environments: {
            pro: { cliClientId: options.proCliClientId, sdkClientId: options.proSdkClientId },
            qa: { cliClientId: options.qaCliClientId, sdkClientId: options.qaSdkClientId },
          },
          unknownClientIds: options.unknownClientIds,
          unknownFields: options.unknownFields,
          cancelEvents: options.cancelEvents,
          badgeAnswerTimeoutMs: options.badgeAnswerTimeout,
          journalLimit: options.journalLimit,
        },
        onResponse: options.quiet
          ? undefined
          : ({ method, url, status, ms }) =>
              console.log(`${method} ${url} ${status} ${ms.toFixed(1)}ms`),
      },
      // --badges: the simulator runs them, loaded only then (the server never imports it).
      async (server, which) =>
        (await import('../simulator/stub-badges.ts')).runStubBadges(server, which),
    );
  } catch (error) {
    if (error instanceof FixtureError) fail(error.message);
    // By name: the snapshot's code is loaded only with --snapshot.
    if ((error as Error)?.name === 'SnapshotError')
      fail(`--snapshot (BADGE_SIM_SNAPSHOT): ${(error as Error).message}`);
    // Only a stub that serves TLS loads its code, and only its setup throws this.
    if (tls && error instanceof (await import('../server-stub/tls.ts')).TlsSetupError)
      fail(tlsProblem(error, options));
    // By name: the simulator is loaded only with --badges.
    if ((error as Error)?.name === 'FleetError')
      fail(`--badges (BADGE_SIM_BADGES): ${(error as Error).message.replace(/^badge-sim: /, '')}`);
    const reason = listenProblem(error as NodeJS.ErrnoException, options.port);
    if (reason) fail(`cannot listen on ${options.host}:${options.port}: ${reason}`);
    throw error;
  }
  const { core } = stub;
  const recording =
    recordFd === undefined
      ? undefined
      : writeRecordingTo(core.recorder, recordFd, options.record!, (message) =>
          console.error(message),
        );
  const source =
    options.generate !== undefined
      ? `generated from seed ${options.seed ?? 0}`
      : (options.fixtures ?? 'default fixtures');
  const { brandWord, environments, unknownClientIds } = core.settings;
  console.log(`badge-sim stub ready
  service API  ${stub.url}/subscribers/{id}/api/v1
  trigger API  ${stub.url}/ibot/workflow/{workflow_id} · ${stub.url}/${brandWord}/api/v1/device/{device_id}
  token        ${stub.url}/oauth2/token, /oauth2/validate (environment pro; qa under ${stub.url}${environments.qa.prefix})
  client ids   ${ENVIRONMENTS.map((name) => `${name} ${environments[name].cliClientId} (cli), ${environments[name].sdkClientId} (sdk)`).join(' · ')}; unknown ones ${unknownClientIds === 'accept' ? 'accepted' : 'refused'}
  control API  ${stub.controlUrl}
               ${stub.controlLocked ? `control API locked (send header ${CONTROL_TOKEN_HEADER}: <the --control-token>)` : 'control API open (no --control-token)'}
  OpenAPI      ${stub.openapiUrl}
  AsyncAPI     ${stub.controlUrl}/asyncapi.json (the badges' WebSocket protocol)
  dashboard    ${stub.controlUrl}/ui/${stub.controlLocked ? ' (it asks for the control token)' : ''}
${options.badges === undefined ? '' : `  badges       ${stub.app.gateway.connected().length} virtual badges run here (${options.badges === true ? 'all' : options.badges})\n`}${stub.tls ? tlsLines(stub.tls, options.tlsCa, options.tlsDir !== undefined) : ''}  ids          ${core.ids.seeded ? `from seed ${options.seed}: the same on every run` : 'random: new on every start and reset (no --seed)'}
${recording ? `  recording    ${options.record} (JSON lines, at most ${options.recordLimit} records)\n` : ''}  clock        ${core.clock.mode}${core.clock.mode === 'scaled' ? ` ×${core.clock.state.scale}` : ''}, now ${formatTimestamp(core.clock.now())}
  fixtures     ${source}: ${core.directory.subscribers().length} accounts, ${core.directory.devices().length} devices`);
  const fit = roomForBadges();
  if (fit !== undefined && core.directory.devices().length > fit)
    console.log(
      `  open files   at most ${(fit + OPEN_FILES_HEADROOM).toLocaleString('en-US')} (ulimit -n): about ${fit.toLocaleString('en-US')} badges can be connected at once, fewer than the devices; raise the limit (ulimit -n) to connect them all`,
    );
  for (const account of core.fixtures.accounts) {
    const key = account.api_keys[0]!;
    // Keys are secrets: show only enough to tell them apart.
    console.log(
      `  account      ${account.subscriber_id} ${account.name ?? ''} (API key ${key.slice(0, 4)}…, see the fixtures)`,
    );
  }
  // Said whatever --quiet says: it is not a request line, and the clock went on without a badge.
  stub.app.gateway.onHold((hold) => console.log(holdMessage(hold)));
  console.log('Press Ctrl+C to stop.');
  const stop = async (signal: string) => {
    console.log(`\n${signal}: stopping the stub`);
    await stub.close();
    recording?.close();
    if (recording) console.log(recordingSaid(options.record!, recording, core.recorder.list()));
    process.exit(0);
  };
  process.once('SIGINT', () => void stop('SIGINT'));
  process.once('SIGTERM', () => void stop('SIGTERM'));
}

/**
 * What the stub says of its recording as it stops: where it went, how much, and what to do
 * with it; a file that stopped early or records dropped past the limit are said too.
 */
export function recordingSaid(
  file: string,
  written: { written: number; failed: string | undefined },
  kept: { dropped: number; limit: number },
): string {
  const records = `${written.written} record${written.written === 1 ? '' : 's'}`;
  const lines = written.failed
    ? [`recording: ${file} holds the first ${records} only: writing it failed (${written.failed}).`]
    : [
        `recording: ${records} in ${file}; make a regression test of it: badge-sim record ${file} --to ${scenarioFileFor(file)}`,
      ];
  if (kept.dropped > 0)
    lines.push(
      `recording: ${kept.dropped} records dropped past --record-limit ${kept.limit} (the file ends with what came before)`,
    );
  return lines.join('\n');
}

/** session.jsonl → session.scenario.yaml, beside it. */
function scenarioFileFor(recording: string): string {
  return `${recording.replace(/\.(jsonl|json|ndjson|log)$/i, '')}.scenario.yaml`;
}

/**
 * Opens the file of `--record` before the stub starts: one that cannot be written is one
 * line, exit 2, and nothing listens (RS5).
 */
function openRecording(file: string, open: (file: string) => number): number {
  try {
    return open(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT'
        ? 'its folder does not exist'
        : code === 'EACCES' || code === 'EPERM' || code === 'EROFS'
          ? 'not allowed to write it'
          : code === 'EISDIR'
            ? 'it is a folder'
            : (code ?? String(error));
    fail(
      `--record (BADGE_SIM_RECORD) ${file}: cannot write it (${why}): give a file path in a folder you can write.`,
    );
  }
}

/**
 * Why the stub could not listen, with what to do (I15), or undefined for an error that is no
 * listening problem. Node's codes: the host does not resolve (ENOTFOUND, EAI_AGAIN), is not
 * an address of this machine (EADDRNOTAVAIL), the port is taken (EADDRINUSE) or privileged
 * (EACCES).
 */
function listenProblem(error: NodeJS.ErrnoException, port: number): string | undefined {
  switch (error?.code) {
    case 'EADDRINUSE':
      return `port ${port} is in use (pick another with --port, or --port 0 for any free port)`;
    case 'EACCES':
      return 'not allowed (use a port above 1023)';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EAI_FAIL':
    case 'EAI_NONAME':
      return 'the host name does not resolve (give --host an address of this machine, e.g. 127.0.0.1 or 0.0.0.0)';
    case 'EADDRNOTAVAIL':
    case 'EAFNOSUPPORT':
      return 'that address is not one of this machine (give --host an address of this machine, e.g. 127.0.0.1 or 0.0.0.0)';
    default:
      return typeof error?.code === 'string' && typeof error.syscall === 'string'
        ? `${error.code} from ${error.syscall} (check --host and --port)`
        : undefined;
  }
}

/**
 * The TLS options of `startStub` from the flags and variables, or undefined for plain HTTP.
 * Any --tls-* option means --tls. Files are read here: a path that cannot be read is one line
 * naming the flag (exit 2).
 */
function tlsOptionsFrom(options: StubOptions): StubTlsOptions | undefined {
  const given = (['tlsCert', 'tlsKey', 'tlsCa', 'tlsDir', 'tlsNames'] as const).filter(
    (name) => options[name] !== undefined,
  );
  const wanted = options.tls ?? booleanFromEnv('BADGE_SIM_TLS', given.length > 0);
  if (!wanted && given.length > 0)
    fail(
      `BADGE_SIM_TLS is false but ${given.map((g) => TLS_FLAGS[tlsField(g)]).join(' and ')} ${given.length > 1 ? 'are' : 'is'} given: drop ${given.length > 1 ? 'them' : 'it'}, or BADGE_SIM_TLS.`,
    );
  if (!wanted) return undefined;
  if (options.tlsCa !== undefined && options.tlsCert === undefined)
    fail(
      `${TLS_FLAGS.ca} is the CA of a given certificate: give ${TLS_FLAGS.cert} and ${TLS_FLAGS.key} too.`,
    );
  const read = (field: 'cert' | 'key' | 'ca', file: string | undefined) => {
    if (file === undefined) return undefined;
    try {
      return readPemFile(file);
    } catch (error) {
      if (error instanceof RangeError)
        fail(
          `${TLS_FLAGS[field]} ${file}: is over ${PEM_FILE_MAX_BYTES / 1024} KiB, not a PEM file: give the path of a PEM file.`,
        );
      const code = (error as NodeJS.ErrnoException).code;
      const why =
        code === 'ENOENT'
          ? 'no such file'
          : code === 'EACCES'
            ? 'not allowed to read it'
            : code === 'EISDIR'
              ? 'it is a folder'
              : (code ?? 'unreadable');
      fail(`${TLS_FLAGS[field]} ${file}: cannot read it (${why}): give the path of a PEM file.`);
    }
  };
  return {
    cert: read('cert', options.tlsCert),
    key: read('key', options.tlsKey),
    ca: read('ca', options.tlsCa),
    dir: options.tlsDir,
    names: options.tlsNames
      ?.split(',')
      .map((name) => name.trim())
      .filter(Boolean),
  };
}

function tlsField(option: 'tlsCert' | 'tlsKey' | 'tlsCa' | 'tlsDir' | 'tlsNames') {
  return option.slice(3).toLowerCase() as keyof typeof TLS_FLAGS;
}

/** A TLS setup error as one line naming the flag, its variable and the file. */
function tlsProblem(error: TlsSetupError, options: StubOptions): string {
  const file =
    error.field === 'cert'
      ? options.tlsCert
      : error.field === 'key'
        ? options.tlsKey
        : error.field === 'ca'
          ? options.tlsCa
          : undefined;
  return `${TLS_FLAGS[error.field]}${file === undefined ? '' : ` ${file}`}: ${error.message}.`;
}

/** A certificate chain or a key is a few KiB; more is not a PEM file meant for the stub. */
const PEM_FILE_MAX_BYTES = 1024 * 1024;

/**
 * A PEM file's text, read up to `PEM_FILE_MAX_BYTES` (RangeError past it): a device such as
 * /dev/zero never ends, and a start must fail, not hang. A pipe (`<(…)`) is read to its end.
 */
function readPemFile(file: string): string {
  const fd = openSync(file, 'r');
  try {
    const buffer = Buffer.alloc(PEM_FILE_MAX_BYTES + 1);
    let length = 0;
    for (;;) {
      const read = readSync(fd, buffer, length, buffer.length - length, null);
      if (read === 0) return buffer.toString('utf8', 0, length);
      length += read;
      if (length > PEM_FILE_MAX_BYTES) throw new RangeError(`${file} is over the limit`);
    }
  } finally {
    closeSync(fd);
  }
}

/** What the ready banner says of TLS: where the CA is and how each kind of client trusts it. */
function tlsLines(tls: StubTlsInfo, givenCaFile: string | undefined, keptDir: boolean): string {
  const names = `${tls.names.slice(0, 8).join(', ')}${tls.names.length > 8 ? `, … (${tls.names.length})` : ''}`;
  const caFile = givenCaFile ?? tls.caFile;
  const where = {
    'new-ca': keptDir
      ? 'a CA made now and kept in --tls-dir: trust it once, it is reused on every start'
      : 'a CA made for this run: trust it again after a restart, or keep one with --tls-dir',
    'kept-ca': 'the CA kept in --tls-dir: clients that trust it need nothing new',
    given: 'the CA given with --tls-ca',
  }[tls.source];
  const trust = caFile
    ? `  CA file      ${caFile} (${tls.source === 'given' && !givenCaFile ? 'the certificate is self-signed' : where})
  trust it     NODE_EXTRA_CA_CERTS=${caFile}   (Node, and badge-sim's own commands)
               REQUESTS_CA_BUNDLE=${caFile}    (Python requests)
               curl --cacert ${caFile}
`
    : "  CA file      none (no --tls-ca): clients must trust the certificate's issuer on their own\n";
  return `  TLS          https:// and wss:// only (plain http:// is refused); certificate for ${names}, until ${tls.validTo.toISOString().slice(0, 10)}
${trust}`;
}

/** true/1/yes or false/0/no; anything else is refused, naming the variable. */
function booleanFromEnv(name: string, otherwise = false): boolean {
  const value = process.env[name]?.trim().toLowerCase();
  if (value === undefined || value === '') return otherwise;
  if (['true', '1', 'yes'].includes(value)) return true;
  if (['false', '0', 'no'].includes(value)) return false;
  fail(`${name} must be true or false (it is '${process.env[name]}').`);
}
