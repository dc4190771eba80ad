import { holdMessage } from '../clock/hold-message.ts';
import { DEFAULT_FIXTURES_FILE, FixtureError } from '../fixtures/load-fixtures.ts';
import type { startStub as StartStub, StubHandle } from '../server-stub/start-stub.ts';
import type { StubTlsOptions } from '../server-stub/tls.ts';
import { fail } from './cli-errors.ts';
import { printReadyBanner, recordingSaid } from './stub-banner.ts';
import type { StubOptions } from './stub-options.ts';
import { tlsProblem } from './stub-tls-options.ts';

/**
 * Runs `badge-sim stub` once its options are checked: opens the recording's file, starts the
 * stub (and its badges, with --badges), prints the banner, says each clock hold, and stops
 * on SIGINT or SIGTERM, saying what the recording holds.
 */
export async function runStub(
  options: StubOptions,
  tls: StubTlsOptions | undefined,
): Promise<void> {
  // The server is loaded once the options are known to be good: a wrong one fails at once.
  const [{ startStub }, { openRecordingFile, whyNotWritable, writeRecordingTo }] =
    await Promise.all([
      import('../server-stub/start-stub.ts'),
      import('../server-stub/recording-file.ts'),
    ]);
  const recordFd =
    options.record === undefined
      ? undefined
      : openRecording(options.record, openRecordingFile, whyNotWritable);
  const stub = await startFromOptions(startStub, options, tls);
  const { core } = stub;
  const recording =
    recordFd === undefined
      ? undefined
      : writeRecordingTo(core.recorder, recordFd, options.record!, (message) =>
          console.error(message),
        );
  printReadyBanner(stub, options, recording !== undefined);
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

/** The stub the options ask for, listening; what stops it is one line saying what to fix. */
async function startFromOptions(
  startStub: typeof StartStub,
  options: StubOptions,
  tls: StubTlsOptions | undefined,
): Promise<StubHandle> {
  const fixtures =
    options.generate !== undefined
      ? (await import('../fixtures/generate-fixtures.ts')).generateFixtures({
          seed: options.seed ?? 0,
          devicesPerAccount: options.generate,
        })
      : (options.fixtures ?? DEFAULT_FIXTURES_FILE);
  try {
    return await startStub(
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
        trace: options.trace,
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
      async (server, which, snapshot) =>
        (await import('../simulator/stub-badges.ts')).runStubBadges(server, which, snapshot),
    );
  } catch (error) {
    if (error instanceof FixtureError) fail(error.message);
    // By name: the trace's code is loaded only with --trace.
    if ((error as Error)?.name === 'TraceFileError')
      fail(
        `--trace (BADGE_SIM_TRACE) ${(error as Error).message.replace(/^badge-sim: trace /, '')}`,
      );
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
}

/**
 * Opens the file of `--record` before the stub starts: one that cannot be written is one
 * line, exit 2, and nothing listens (RS5).
 */
function openRecording(
  file: string,
  open: (file: string) => number,
  whyNotWritable: (error: unknown) => string,
): number {
  try {
    return open(file);
  } catch (error) {
    fail(
      `--record (BADGE_SIM_RECORD) ${file}: cannot write it (${whyNotWritable(error)}): give a file path in a folder you can write.`,
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
