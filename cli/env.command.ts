import { Command } from 'commander';
import { untrustedCertificateHint } from '../client/trust.ts';
import { CONTROL_PREFIX, controlTokenHeaders } from '../protocol/control-api.schema.ts';
import type { EnvironmentSettings } from '../server-stub/settings.ts';
import { fail } from './cli-errors.ts';
import { COMMANDS } from './commands.ts';
import { checkedControlToken, controlTokenOption } from './control-access.ts';
import { checkStub } from './stub-check.ts';

/** `badge-sim env`: the environment listing, as the original command-line tool prints it. */
export function envCommand(): Command {
  return new Command('env')
    .description(COMMANDS.env.description)
    .option('--stub <url>', 'base URL of the stub', 'http://127.0.0.1:8080')
    .addOption(controlTokenOption())
    .option('--json', 'print JSON instead of a table')
    .action(async (options: { stub: string; controlToken?: string; json?: boolean }) => {
      const base = options.stub.replace(/\/+$/, '');
      const controlToken = checkedControlToken(options.controlToken);
      await checkStub(base, controlToken);
      let environments: Record<string, EnvironmentSettings>;
      try {
        const response = await fetch(`${base}${CONTROL_PREFIX}/environments`, {
          headers: controlTokenHeaders(controlToken),
        });
        if (!response.ok) fail(`${base} answered ${response.status}: is it a badge-sim stub?`);
        environments = (await response.json()) as Record<string, EnvironmentSettings>;
      } catch (error) {
        const untrusted = untrustedCertificateHint(error);
        if (untrusted) fail(`cannot reach the stub at ${base}: ${untrusted}.`);
        fail(
          `cannot reach the stub at ${base} (${(error as Error).message}): start one with 'badge-sim stub'.`,
        );
      }
      const rows = Object.entries(environments).map(([name, env]) => ({
        environment: name,
        default: name === 'pro',
        api_host: `${base}${env.prefix}`,
        auth_host: `${base}${env.prefix}`,
        cli_client_id: env.cliClientId,
        sdk_client_id: env.sdkClientId,
      }));
      if (options.json) {
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
    });
}

/** Columns padded to their widest cell, two spaces apart. */
export function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!))).join('  ');
  return `${[line(header), ...rows.map(line)].join('\n')}\n`;
}
