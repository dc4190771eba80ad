/**
 * One clip object for every badge that heard the same clip. A fan-out plays the same clip on
 * every badge, one after the other, and each badge's machine makes its own copy (with its own
 * strings, read from its own frame); a transcript keeps the first badge's copy instead, so a
 * fleet's transcripts cost 16 bytes a clip, not about 200 (decision H4).
 */
import type { Clip } from './badge.machine.ts';

/** A clip as a transcript keeps it: shared, or a badge's own copy once the stub cut it short. */
export type KeptClip = Readonly<Clip> & { readonly cut?: true };

/** The clip the last badge kept: the next badge of a fan-out hears the same one. */
let last: KeptClip | undefined;

/** The shared clip equal to `clip` (every field the same), or `clip` itself, kept for the next. */
export function sharedClip(clip: Clip): KeptClip {
  const known = last;
  if (
    known !== undefined &&
    known.taskId === clip.taskId &&
    known.repeat === clip.repeat &&
    known.kind === clip.kind &&
    known.durationMs === clip.durationMs &&
    known.cause === clip.cause &&
    known.text === clip.text
  )
    return known;
  last = clip;
  return clip;
}
