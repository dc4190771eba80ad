/**
 * How bench/soak.bench.ts judges growth: the memory of both processes after each round, the
 * least-squares slope of each figure after the warm-up (MiB per virtual hour), and its report.
 */
import type { ProcessMemory } from './bench-support.ts';

const MIB = 1024 * 1024;

export interface Memory extends ProcessMemory {
  /** The stub only: compiled code, V8's malloc'd memory, and the sizes of its young and old spaces. */
  codeSpace?: number;
  malloced?: number;
  newSpace?: number;
  oldSpace?: number;
}

export interface Round {
  round: number;
  stub: Memory;
  fleet: Memory;
}

/** Least-squares slope of y over x; NaN with fewer than two points. */
function leastSquaresSlope(points: [number, number][]): number {
  const n = points.length;
  if (n < 2) return Number.NaN;
  const mx = points.reduce((s, [x]) => s + x, 0) / n;
  const my = points.reduce((s, [, y]) => s + y, 0) / n;
  let sxy = 0;
  let sxx = 0;
  for (const [x, y] of points) {
    sxy += (x - mx) * (y - my);
    sxx += (x - mx) ** 2;
  }
  return sxy / sxx;
}

/** The run's shape, as the growth section names it. */
export interface GrowthSpan {
  warmupHours: number;
  hours: number;
  roundsAnHour: number;
}

/**
 * Prints the growth section (the four slopes the goal judges, the stub's RSS part by part, start
 * to end) and returns the four slopes, by name.
 */
export function printGrowth(
  print: (line?: string) => void,
  rounds: Round[],
  span: GrowthSpan,
): Record<string, number> {
  const measured = rounds.filter((r) => r.round > span.warmupHours * span.roundsAnHour);
  const slope = (pick: (r: Round) => number) =>
    leastSquaresSlope(measured.map((r) => [r.round / span.roundsAnHour, pick(r) / MIB]));
  const slopes = {
    'stub heap used': slope((r) => r.stub.heapUsed),
    'stub RSS': slope((r) => r.stub.rss),
    'fleet heap used': slope((r) => r.fleet.heapUsed),
    'fleet RSS': slope((r) => r.fleet.rss),
  };
  const [start, last] = [rounds[0]!, rounds.at(-1)!];
  print('### Growth');
  print();
  print(
    `- slope (least squares over ${measured.length} rounds, ${span.warmupHours}–${span.hours} h): ` +
      slopesText(slopes),
  );
  const stubParts = {
    'heap total': slope((r) => r.stub.heapTotal),
    'of it new space': slope((r) => r.stub.newSpace ?? 0),
    'old space': slope((r) => r.stub.oldSpace ?? 0),
    external: slope((r) => r.stub.external),
    'V8 malloc': slope((r) => r.stub.malloced ?? 0),
    'RSS − heap total − external': slope((r) => r.stub.rss - r.stub.heapTotal - r.stub.external),
  };
  print(`- the stub's RSS, part by part: ${slopesText(stubParts)}`);
  print(
    `- from the start to the end: stub RSS ${mib(start.stub.rss)} → ${mib(last.stub.rss)}, heap used ` +
      `${mib(start.stub.heapUsed)} → ${mib(last.stub.heapUsed)}; fleet RSS ${mib(start.fleet.rss)} → ` +
      `${mib(last.fleet.rss)}, heap used ${mib(start.fleet.heapUsed)} → ${mib(last.fleet.heapUsed)}`,
  );
  return slopes;
}

export function slopesText(slopes: Record<string, number>): string {
  return Object.entries(slopes)
    .map(([what, value]) => `${what} ${perHour(value)}`)
    .join(', ');
}

export function mib(bytes: number): string {
  return `${(bytes / MIB).toFixed(1)} MiB`;
}

function perHour(value: number): string {
  return Number.isNaN(value) ? '–' : `${value >= 0 ? '+' : ''}${value.toFixed(3)} MiB/h`;
}
