import { spawnSync } from 'node:child_process';
import say from 'say';
import { EstimateTts, type TextToSpeech, TtsUnavailableError } from './engine.ts';

/**
 * Speaks aloud through the `say` package, for a developer listening on a laptop. On Linux
 * `say` drives festival. The play time on the badge is the estimate's: speech runs in real
 * time beside the simulation and `say` cannot render to a file on Linux to be measured.
 */
export class SayTts implements TextToSpeech {
  readonly name = 'say' as const;
  readonly #estimate = new EstimateTts();

  private constructor() {}

  /** Checks that festival (what `say` drives on Linux) runs here. */
  static create(festival = 'festival'): SayTts {
    if (process.platform === 'linux') {
      const probe = spawnSync(festival, ['--version'], { encoding: 'utf8' });
      if (probe.error || probe.status !== 0) {
        throw new TtsUnavailableError(
          'say',
          ['festival', 'festvox-kallpc16k'],
          'festival and a voice',
        );
      }
    }
    return new SayTts();
  }

  duration(text: string): number {
    return this.#estimate.duration(text);
  }

  speak(text: string): void {
    // Speaking is a side show: a failure (no sound card) must not stop the simulation.
    say.speak(text, undefined, undefined, (error?: string) => {
      if (error) process.emitWarning(`badge-sim: say could not speak: ${error}`);
    });
  }
}
