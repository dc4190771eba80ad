/**
 * How bench/fleet-run.ts writes what it measured: figures with their units, a Markdown memory
 * table, PASS/FAIL, and progress on stderr (a line that rewrites itself on a terminal).
 */
import { execFileSync } from 'node:child_process';
import { clearLine } from 'node:readline';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Rows of [label, before, after] in bytes, with the delta and its share per badge. */
export function memoryTable(rows: [string, number, number][], badges: number): string[] {
  const header = ['', 'before', 'all online', 'delta', `per badge (÷ ${badges})`];
  const body = rows.map(([label, b, a]) => [label, mb(b), mb(a), mb(a - b), kb((a - b) / badges)]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((c) => c[i]!.length)));
  const line = (cells: string[]) =>
    `| ${cells.map((c, i) => (i > 0 ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join(' | ')} |`;
  const rule = `|${widths.map((w, i) => (i > 0 ? `${'-'.repeat(w + 1)}:` : '-'.repeat(w + 2))).join('|')}|`;
  return [line(header), rule, ...body.map(line)];
}

export function mb(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

export function kb(bytes: number): string {
  return `${(bytes / 1024).toFixed(1)} KB`;
}

export function ms(value: number): string {
  return Number.isNaN(value) ? '–' : `${value.toFixed(1)} ms`;
}

export function seconds(value: number): string {
  return Number.isNaN(value) ? '–' : `${(value / 1000).toFixed(2)} s`;
}

export function share(fraction: number): string {
  return Number.isNaN(fraction) ? '–' : `${Math.round(fraction * 100)} %`;
}

export function verdict(ok: boolean): string {
  return ok ? 'PASS' : 'FAIL';
}

export function progress(line: string): void {
  progressEnd();
  process.stderr.write(`${line}\n`);
}

let lineOpen = false;

/** A line that rewrites itself on a terminal; one line per update elsewhere. */
export function progressLine(line: string): void {
  if (process.stderr.isTTY) {
    process.stderr.write(`\r${line}`);
    clearLine(process.stderr, 1);
    lineOpen = true;
  } else {
    process.stderr.write(`${line}\n`);
  }
}

export function progressEnd(): void {
  if (lineOpen) process.stderr.write('\n');
  lineOpen = false;
}

/** The commit, and how many files differ from it (the bench measures the working tree). */
export function treeState(): string {
  try {
    const git = (...args: string[]) =>
      execFileSync('git', args, { cwd: ROOT, encoding: 'utf8', timeout: 5000 }).trim();
    const changed = git('status', '--porcelain').split('\n').filter(Boolean).length;
    return `git ${git('rev-parse', '--short', 'HEAD')}${changed ? ` + ${changed} changed/untracked files` : ''}`;
  } catch {
    return 'not a git checkout';
  }
}
