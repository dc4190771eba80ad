/**
 * Text-to-speech engines: how long a badge takes to say a text, and (for `say`) saying it
 * aloud. The play time of every alert, broadcast and speech on a virtual badge comes from
 * the chosen engine.
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

/** Creates an engine by name; `espeak` and `say` check their system packages first. */
export async function createTextToSpeech(name: TtsName): Promise<TextToSpeech> {
  switch (name) {
    case 'estimate':
      return new EstimateTts();
    case 'espeak': {
      const { EspeakTts } = await import('./espeak-tts.ts');
      return EspeakTts.create();
    }
    case 'say': {
      const { SayTts } = await import('./say-tts.ts');
      return SayTts.create();
    }
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
