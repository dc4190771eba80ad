/**
 * A command's refusal of its options, checked in this process: what `badge-sim <command> …`
 * prints on stderr and the status it exits with, without starting node for it. For the cases
 * that only parse (a flag, a BADGE_SIM_ variable, options that go together): each test file
 * keeps at least one case per capability in a real process (test/support/cli.ts), which also
 * holds the real exit status; these spare a process start each (seconds on a loaded machine).
 */
import { type Command, CommanderError } from 'commander';
import { vi } from 'vitest';

/** What `process.exit` was asked for, thrown so that nothing after it runs. */
class ExitCalled extends Error {
  constructor(readonly code: number) {
    super(`process.exit(${code})`);
  }
}

export interface Refusal {
  /** The exit status: 2 for a usage error, as cli/badge-sim.ts makes every refusal. */
  status: number;
  stderr: string;
}

/**
 * Parses `args` (after the command's name) with `env` set, and returns the refusal. A command
 * that accepts them would go on to run: only give arguments it refuses.
 */
export async function refusalInProcess(
  command: Command,
  args: string[],
  env: Record<string, string> = {},
): Promise<Refusal> {
  let stderr = '';
  const saved = Object.fromEntries(Object.keys(env).map((name) => [name, process.env[name]]));
  Object.assign(process.env, env);
  command.exitOverride().configureOutput({
    writeErr: (text) => {
      stderr += text;
    },
    writeOut: () => {},
  });
  const exit = vi.spyOn(process, 'exit').mockImplementation((code) => {
    throw new ExitCalled(Number(code ?? 0));
  });
  const write = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
    stderr += String(chunk);
    return true;
  });
  try {
    await command.parseAsync(args, { from: 'user' });
    throw new Error(`${command.name()} ${args.join(' ')} was accepted`);
  } catch (error) {
    if (error instanceof ExitCalled) return { status: error.code, stderr };
    // commander's own refusals, which badge-sim.ts turns into exit 2 (test/cli/exit-codes.test.ts)
    if (error instanceof CommanderError) return { status: error.exitCode === 0 ? 0 : 2, stderr };
    throw error;
  } finally {
    exit.mockRestore();
    write.mockRestore();
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
}
