import { formatTimestamp } from '../clock/clock.ts';
import { CONTROL_TOKEN_HEADER, ENVIRONMENTS } from '../protocol/control-api.schema.ts';
import type { StubHandle } from '../server-stub/start-stub.ts';
import type { StubTlsInfo } from '../server-stub/tls.ts';
import { OPEN_FILES_HEADROOM, roomForBadges } from '../simulator/open-files.ts';
import type { StubOptions } from './stub-options.ts';

/**
 * What `badge-sim stub` prints once it listens: where each API is, the control API's lock,
 * the dashboard, badges, TLS, ids, the recording, the clock, the fixtures and their accounts
 * (keys shortened: they are secrets).
 */
export function printReadyBanner(stub: StubHandle, options: StubOptions, recording: boolean): void {
  const { core } = stub;
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
${recording ? `  recording    ${options.record} (JSON lines, at most ${options.recordLimit} records)\n` : ''}${options.trace ? `  trace        ${options.trace} (gzip JSON lines, at most ${options.recordLimit} records; complete once the stub stops)\n` : ''}  clock        ${core.clock.mode}${core.clock.mode === 'scaled' ? ` ×${core.clock.state.scale}` : ''}, now ${formatTimestamp(core.clock.now())}
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
