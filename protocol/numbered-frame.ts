/**
 * A frame's text with the `seq` its sender numbers it with, without serialising the frame for
 * each send. The opening is the frame's JSON without its closing brace; `numbered` appends
 * `,"seq":N}`: byte for byte what `JSON.stringify({ ...frame, seq })` writes for a frame that
 * has a `type` and no `seq` of its own (every unnumbered frame). A frame sent to many badges,
 * or a report a badge sends again and again, is then serialised once.
 */

/** A frame's JSON without its closing `}`: `numbered` completes it with a seq. */
export type FrameOpening = string & { readonly frameOpening: true };

/** The opening of an unnumbered frame (one with a `type` and no `seq`). */
export function frameOpening(frame: { readonly type: string }): FrameOpening {
  return JSON.stringify(frame).slice(0, -1) as FrameOpening;
}

/** The frame's text with its seq: `JSON.stringify({ ...frame, seq })`. */
export function numbered(opening: FrameOpening, seq: number): string {
  return `${opening},"seq":${seq}}`;
}
