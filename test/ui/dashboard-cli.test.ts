/**
 * `badge-sim stub --badges` as a newcomer runs it: a real process prints the dashboard's URL
 * (and the device protocol's AsyncAPI document beside the OpenAPI one),
 * runs the fixtures' badges itself, and stops cleanly with a dashboard still connected.
 */
import { once } from 'node:events';
import { describe, expect, test } from 'vitest';
import { StubControlClient } from '../../client/control-client.ts';
import { runCli, startCli } from '../support/cli.ts';

describe('badge-sim stub --badges', () => {
  test('prints the dashboard and AsyncAPI URLs, runs a badge for every device, and stops on SIGTERM with a stream open', async () => {
    await using cli = await startCli(
      ['stub', '--badges', '--clock', 'virtual', '--port', '0', '--quiet'],
      'Press Ctrl+C to stop.',
    );
    const url = /dashboard\s+(http:\/\/\S+)\/_stub\/ui\/\n/.exec(cli.output())?.[1];
    expect(url).toBeDefined();
    expect(cli.output()).toContain('8 virtual badges run here (all)');
    // The device protocol's document beside the OpenAPI one: what a badge of one's own reads.
    const asyncapi = /AsyncAPI\s+(http:\/\/\S+)/.exec(cli.output())?.[1];
    expect(asyncapi).toBe(`${url}/_stub/asyncapi.json`);
    const document = await fetch(asyncapi!);
    expect(((await document.json()) as { asyncapi: string }).asyncapi).toBe('3.0.0');
    const page = await fetch(`${url}/_stub/ui/`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<script defer src="app.js"></script>');
    const control = new StubControlClient(url!);
    const snapshot = await control.liveSnapshot();
    expect(snapshot.devices.every((d) => d.online && d.state === 'idle' && d.run_by_stub)).toBe(
      true,
    );
    // A dashboard tab still open does not keep the stub from stopping.
    const stream = control.stream();
    expect((await stream.next()).value?.name).toBe('snapshot');
    cli.child.kill('SIGTERM');
    const [code] = await once(cli.child, 'exit');
    expect(code).toBe(0);
  });

  test('a group with no devices is one line naming --badges and the groups there are, exit 2', () => {
    const result = runCli(['stub', '--badges', 'Cleaners', '--port', '0']);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain("--badges (BADGE_SIM_BADGES): no group 'Cleaners'");
    expect(result.stderr).toContain('Nurses');
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  test('--help describes --badges and shows the dashboard example', () => {
    const help = runCli(['stub', '--help']).stdout;
    expect(help).toContain('--badges [group]');
    expect(help).toContain('badge-sim stub --badges all --clock virtual');
  });
});
