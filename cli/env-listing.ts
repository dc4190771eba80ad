import { untrustedCertificateHint } from '../client/trust.ts';
import { CONTROL_PREFIX, controlTokenHeaders } from '../protocol/control-api.schema.ts';
import type { EnvironmentSettings } from '../server-stub/settings.ts';
import { fail } from './cli-errors.ts';
import { checkStub } from './stub-check.ts';
import { table } from './text-table.ts';

/**
 * Prints a stub's environments as the original command-line tool lists them (a table, or
 * JSON): each one's API and auth host and its client ids.
 */
export async function printEnvironments(
  base: string,
  controlToken: string | undefined,
  json: boolean,
): Promise<void> {
  await checkStub(base, controlToken);
  const environments = await environmentsOf(base, controlToken);
  const rows = Object.entries(environments).map(([name, env]) => ({
    environment: name,
    default: name === 'pro',
    api_host: `${base}${env.prefix}`,
    auth_host: `${base}${env.prefix}`,
    cli_client_id: env.cliClientId,
    sdk_client_id: env.sdkClientId,
  }));
  if (json) {
    process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
    return;
  }
  const header = ['ENVIRONMENT', 'API HOST', 'AUTH HOST', 'CLI CLIENT ID', 'SDK CLIENT ID'];
  const cells = rows.map((r) => [
    `${r.environment}${r.default ? ' (default)' : ''}`,
    r.api_host,
    r.auth_host,
    r.cli_client_id,
    r.sdk_client_id,
  ]);
  process.stdout.write(table(header, cells));
}

/** GET /_stub/environments, or one line saying why not. */
async function environmentsOf(
  base: string,
  controlToken: string | undefined,
): Promise<Record<string, EnvironmentSettings>> {
  try {
    const response = await fetch(`${base}${CONTROL_PREFIX}/environments`, {
      headers: controlTokenHeaders(controlToken),
    });
    if (!response.ok) fail(`${base} answered ${response.status}: is it a badge-sim stub?`);
    return (await response.json()) as Record<string, EnvironmentSettings>;
  } catch (error) {
    const untrusted = untrustedCertificateHint(error);
    if (untrusted) fail(`cannot reach the stub at ${base}: ${untrusted}.`);
    fail(
      `cannot reach the stub at ${base} (${(error as Error).message}): start one with 'badge-sim stub'.`,
    );
  }
}
