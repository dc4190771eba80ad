/**
 * Text-to-speech engines: how long a badge takes to say a text, and (for `say`) saying it
 * aloud. The play time of every alert, broadcast and speech on a virtual badge comes from
 * the chosen engine. This file is the entry point: the factory, and what the engines share.
 */
import { EstimateTts, type TextToSpeech, type TtsName } from './engine.ts';

export {
  EstimateTts,
  type TextToSpeech,
  TTS_NAMES,
  type TtsName,
  TtsUnavailableError,
} from './engine.ts';

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
