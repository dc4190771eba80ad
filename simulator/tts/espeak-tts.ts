import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import wavefile from 'wavefile';
import { type TextToSpeech, TtsUnavailableError } from './engine.ts';

const run = promisify(execFile);

/**
 * espeak-ng renders each text to a WAV file and the length of that audio is the play time.
 * Renders are cached by text: a fleet hearing one alert renders it once.
 */
export class EspeakTts implements TextToSpeech {
  readonly name = 'espeak' as const;
  readonly #cache = new Map<string, Promise<number>>();
  #count = 0;

  private constructor(readonly binary: string) {}

  /** Checks that espeak-ng runs here. */
  static create(binary = 'espeak-ng'): EspeakTts {
    const probe = spawnSync(binary, ['--version'], { encoding: 'utf8' });
    if (probe.error || probe.status !== 0) {
      throw new TtsUnavailableError(
        'espeak',
        ['espeak-ng'],
        `the ${binary} program (${probe.error?.message ?? probe.stderr.trim()})`,
      );
    }
    return new EspeakTts(binary);
  }

  duration(text: string): Promise<number> {
    let duration = this.#cache.get(text);
    if (!duration) {
      duration = this.#render(text);
      this.#cache.set(text, duration);
      // A failed render is not remembered: the next ask tries again.
      duration.catch(() => this.#cache.delete(text));
    }
    return duration;
  }

  /** The length in ms of a WAV file's audio. */
  static wavDurationMs(bytes: Uint8Array): number {
    const wav = new wavefile.WaveFile(bytes);
    const fmt = wav.fmt as { sampleRate: number; numChannels: number; bitsPerSample: number };
    const data = wav.data as { chunkSize: number };
    return (data.chunkSize / (fmt.sampleRate * fmt.numChannels * (fmt.bitsPerSample / 8))) * 1000;
  }

  async #render(text: string): Promise<number> {
    const file = join(renderFolder(), `${process.pid}-${this.#count++}.wav`);
    try {
      await run(this.binary, ['-w', file, '--', text]);
      return Math.round(EspeakTts.wavDurationMs(readFileSync(file)));
    } finally {
      rmSync(file, { force: true });
    }
  }
}

let folder: string | undefined;

/** One folder a process for the renders, removed when the process exits. */
function renderFolder(): string {
  if (!folder) {
    const made = mkdtempSync(join(tmpdir(), 'badge-sim-espeak-'));
    folder = made;
    process.once('exit', () => rmSync(made, { recursive: true, force: true }));
  }
  return folder;
}
