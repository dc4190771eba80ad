/**
 * What every text-to-speech engine shares: the interface, the names, the error for a missing
 * system package, and the estimate the other engines fall back on. The engines import this
 * file and the factory (`text-to-speech.ts`) imports the engines, so no import runs in a circle.
 */

export interface TextToSpeech {
  readonly name: TtsName;
  /** How long saying `text` takes, in milliseconds. */
  duration(text: string): number | Promise<number>;
  /** Says the text aloud, if this engine can; returns at once. */
  speak?(text: string): void;
}

export type TtsName = 'estimate' | 'espeak' | 'say';
export const TTS_NAMES: readonly TtsName[] = ['estimate', 'espeak', 'say'];

/** A system package the engine needs is missing; the message names the Debian package. */
export class TtsUnavailableError extends Error {
  constructor(
    readonly engine: TtsName,
    readonly debianPackages: string[],
    detail: string,
  ) {
    super(
      `badge-sim: the ${engine} text-to-speech engine needs ${detail}: install it with ` +
        `'apt-get install ${debianPackages.join(' ')}', or use --tts estimate`,
    );
    this.name = 'TtsUnavailableError';
  }
}

/**
 * A deterministic estimate from the text alone, the default on the virtual clock: a short
 * lead-in plus a steady speaking rate of about 15 characters a second.
 */
export class EstimateTts implements TextToSpeech {
  readonly name = 'estimate' as const;
  static readonly LEAD_IN_MS = 300;
  static readonly MS_PER_CHARACTER = 65;

  duration(text: string): number {
    return EstimateTts.LEAD_IN_MS + text.length * EstimateTts.MS_PER_CHARACTER;
  }
}
