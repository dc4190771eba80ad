import { Command } from 'commander';
import { PagingError, ServiceClient, ServiceError } from '../client/service-client.ts';
import { untrustedCertificateHint } from '../client/trust.ts';
import type { AnalyticEvent } from '../protocol/service-api.schema.ts';
import { ANALYTICS_TABLE_COLUMNS } from '../scenarios/field-bugs/repro/analytics-table.ts';
import { fail, integerOption } from './cli-errors.ts';
import { COMMANDS } from './commands.ts';
import { fetchFailure, httpBaseUrl } from './stub-check.ts';
import { table } from './text-table.ts';

interface AnalyticsOptions {
  baseUrl: string;
  subscriberId: string;
  apiKey?: string;
  limit: number;
  json?: boolean;
}

/**
 * `badge-sim analytics`: the analytics listing of the original command-line tool: by default
 * the 20 most recent events of the last 7 days, against a stub or any base URL with its key.
 */
export function analyticsCommand(): Command {
  return new Command('analytics')
    .description(COMMANDS.analytics.description)
    .option(
      '--base-url <url>',
      '{base_url} of the service (a stub, or the real one)',
      'http://127.0.0.1:8080',
    )
    .requiredOption('-s, --subscriber-id <id>', 'the account (subscriber id)')
    .option(
      '--api-key <key>',
      'API key; better in the environment as BADGE_SIM_API_KEY (not in your shell history)',
    )
    .option(
      '-l, --limit <n>',
      'how many of the most recent events',
      integerOption('--limit', 1, 100_000),
      20,
    )
    .option('--json', 'print the events as JSON, as the service returns them')
    .addHelpText(
      'after',
      `
Events are read 100 at a time, each page from the last timestamp of the one before
(skipping ids already seen), so none is lost or listed twice. If 100 or more events share
one timestamp they cannot all be reached: that is said and the exit code is 2.

Example:
  BADGE_SIM_API_KEY=demo-api-key-riverside-0001 badge-sim analytics -s 100001 --limit 50
`,
    )
    .action(async (options: AnalyticsOptions) => {
      const apiKey = options.apiKey ?? process.env.BADGE_SIM_API_KEY;
      if (!apiKey) fail('give the API key with --api-key or in BADGE_SIM_API_KEY.');
      const baseUrl = httpBaseUrl(options.baseUrl, '--base-url');
      const client = new ServiceClient({
        baseUrl,
        subscriberId: options.subscriberId,
        apiKey,
      });
      let events: Awaited<ReturnType<ServiceClient['allEvents']>>;
      try {
        // The service's own default window (7 days on its clock), paged past 100; newest last.
        events = await client.allEvents();
      } catch (error) {
        fail(analyticsFailure(error, baseUrl, `${client.apiBase}/events`, options.subscriberId));
      }
      const recent = events.slice(-options.limit);
      if (options.json) {
        process.stdout.write(`${JSON.stringify(recent, null, 2)}\n`);
        return;
      }
      process.stdout.write(analyticsTable(recent));
      process.stderr.write(`${recent.length} of ${events.length} events of the last 7 days\n`);
    });
}

/** Why the events could not be listed, in one line: what was asked, what answered, what to check. */
function analyticsFailure(error: unknown, base: string, url: string, account: string): string {
  if (error instanceof PagingError) return error.message;
  if (error instanceof ServiceError && error.status === 404) {
    const message = (error.body as { message?: unknown } | null)?.message;
    const answered = typeof message === 'string' ? `: ${message}` : " (not the service's JSON)";
    return `GET ${url} answered 404${answered}: check that --base-url is the service's {base_url} (a badge-sim stub's base URL, as its "service API" line prints it, before /subscribers) and -s ${account} an account of it.`;
  }
  if (error instanceof ServiceError) return error.message;
  const untrusted = untrustedCertificateHint(error);
  if (untrusted) return `cannot reach ${base}: ${untrusted}.`;
  const failure = fetchFailure(url, error, '--base-url');
  return `nothing answers at ${base}: GET ${url} ${failure.what}. Check ${failure.check}.`;
}

/** The listing's table: what `badge-sim analytics` prints, and `badge-sim repro` reads back. */
export function analyticsTable(events: AnalyticEvent[]): string {
  const rows = events.map((e) => [
    e.task.name,
    e.content.type,
    e.category,
    e.task.id,
    e.timestamp,
    e.content.device ?? '',
    JSON.stringify({
      ...(e.content.device ? { device: e.content.device } : {}),
      task: e.task,
      type: e.content.type,
    }),
  ]);
  return table([...ANALYTICS_TABLE_COLUMNS], rows);
}
