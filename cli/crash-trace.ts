/**
 * A crash of the `badge-sim` command, printed with the TypeScript lines of its stack (decision
 * Q13). The installed command is a bundle (dist/cli/); Node's own source maps, on from the
 * start, would read and parse the map of every file it loads, a fifth of a stub's start-up.
 * Here nothing is read until a crash: then the maps of only the files its stack names, each
 * frame shown at the source line the map gives (`server-stub/start-stub.ts:230:11`). A frame
 * with no map (Node's own, the sources run through tsx) is shown as it is.
 */
import { existsSync, readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { fileURLToPath } from 'node:url';
import { inspect } from 'node:util';

/** `(file:///…/chunk.js:12:34)` or `at [async ]file:///…/chunk.js:12:34`, ending a frame. */
const FRAME_LOCATION = /(\(|at (?:async )?)(file:\/\/[^\s()]+?):(\d+):(\d+)(\)?)$/;

/** The map of a compiled file and where it is, read once; null when it has none. */
function mapOf(fileUrl: string, maps: Map<string, { map: SourceMap; url: string } | null>) {
  let found = maps.get(fileUrl);
  if (found === undefined) {
    found = null;
    const mapUrl = `${fileUrl}.map`;
    try {
      if (existsSync(new URL(mapUrl))) {
        found = {
          map: new SourceMap(JSON.parse(readFileSync(new URL(mapUrl), 'utf8'))),
          url: mapUrl,
        };
      }
    } catch {
      // An unreadable map leaves its frames as they are: a crash report must not fail.
    }
    maps.set(fileUrl, found);
  }
  return found;
}

/** A stack trace with each frame of a mapped file at its source line. */
function sourceMappedStack(stack: string): string {
  const maps = new Map<string, { map: SourceMap; url: string } | null>();
  return stack
    .split('\n')
    .map((line) => {
      const frame = FRAME_LOCATION.exec(line);
      if (!frame) return line;
      const [whole, open, fileUrl, lineText, columnText, close] = frame;
      const found = mapOf(fileUrl!, maps);
      const entry = found?.map.findEntry(Number(lineText) - 1, Number(columnText) - 1);
      if (!entry || !('originalSource' in entry) || !entry.originalSource) return line;
      const source = new URL(entry.originalSource, found!.url);
      const where = source.protocol === 'file:' ? fileURLToPath(source) : source.href;
      const mapped = `${open}${where}:${entry.originalLine + 1}:${entry.originalColumn + 1}${close}`;
      return line.slice(0, line.length - whole!.length) + mapped;
    })
    .join('\n');
}

/**
 * From now on, an uncaught exception or unhandled rejection (a command's rejected action
 * among them) is printed with its source lines and ends the process with status 1, as Node's
 * own report would.
 */
export function printCrashesWithSourceLines(): void {
  process.on('uncaughtException', (error) => {
    // As Node prints it (the stack, the error's own fields, its cause), each frame mapped.
    process.stderr.write(`${sourceMappedStack(inspect(error))}\n`);
    process.exit(1);
  });
}
