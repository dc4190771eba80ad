/**
 * JSON lines (one JSON value a line, blank lines skipped), as `badge-sim record` reads a
 * recording and `badge-sim repro` reads `--alerts`: each value with where it stands, so the
 * reader's own checks can name the line.
 */
export interface JsonLine {
  readonly value: unknown;
  /** `file:line`, 1-based. */
  readonly where: string;
}

/** Every non-empty line parsed; a line that is not JSON is `refuse(where, JSON.parse's reason)`. */
export function readJsonLines(
  file: string,
  text: string,
  refuse: (where: string, reason: string) => Error,
): JsonLine[] {
  const lines: JsonLine[] = [];
  text.split('\n').forEach((line, i) => {
    if (line.trim() === '') return;
    const where = `${file}:${i + 1}`;
    try {
      lines.push({ value: JSON.parse(line), where });
    } catch (error) {
      throw refuse(where, (error as Error).message);
    }
  });
  return lines;
}
