/**
 * Text-to-speech engines: the estimate (the default on the virtual clock), espeak-ng (measured
 * WAV renders) and say (festival on Linux). The espeak-ng renders run only where espeak-ng is
 * installed, and always on CI, which must have it.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import wavefile from 'wavefile';
import { EspeakTts } from './espeak-tts.ts';
import { SayTts } from './say-tts.ts';
import {
  createTextToSpeech,
  EstimateTts,
  type TextToSpeech,
  TtsUnavailableError,
} from './text-to-speech.ts';

/** Whether a program runs here: `program --version` exits 0. */
function runs(program: string): boolean {
  const probe = spawnSync(program, ['--version'], { encoding: 'utf8' });
  return !probe.error && probe.status === 0;
}

const espeakInstalled = runs('espeak-ng');
const onCi = process.env.CI === 'true';
const skipEspeak = !espeakInstalled && !onCi;
if (skipEspeak) {
  console.warn(
    'badge-sim tests: skipping the espeak-ng renders: espeak-ng not installed: apt-get install espeak-ng',
  );
}

/** A WAV file of silence. */
function wav(channels: number, sampleRate: number, bitDepth: '8' | '16' | '32', frames: number) {
  const file = new wavefile.WaveFile();
  file.fromScratch(channels, sampleRate, bitDepth, new Array(frames * channels).fill(0));
  return file.toBuffer();
}

describe('EstimateTts', () => {
  const tts = new EstimateTts();

  it('is 300 ms of lead-in plus 65 ms a character', () => {
    expect(tts.duration('')).toBe(300);
    expect(tts.duration('a')).toBe(365);
    expect(tts.duration('Fire in hall B')).toBe(300 + 14 * 65);
    expect(EstimateTts.LEAD_IN_MS).toBe(300);
    expect(EstimateTts.MS_PER_CHARACTER).toBe(65);
  });

  it('is deterministic: the same text always takes the same time, on any instance', () => {
    const text = 'Code blue in ward three, room twelve';
    expect(tts.duration(text)).toBe(tts.duration(text));
    expect(new EstimateTts().duration(text)).toBe(tts.duration(text));
  });

  it('grows with the length of the text', () => {
    const short = tts.duration('Spill');
    const long = tts.duration('Spill in aisle four, bring the yellow signs');
    expect(long).toBeGreaterThan(short);
    expect(long - short).toBe((43 - 5) * 65);
  });

  it('is called estimate and says nothing aloud', () => {
    const engine: TextToSpeech = tts;
    expect(engine.name).toBe('estimate');
    expect(engine.speak).toBeUndefined();
  });
});

describe('createTextToSpeech', () => {
  it("'estimate' gives an EstimateTts", async () => {
    const tts = await createTextToSpeech('estimate');
    expect(tts).toBeInstanceOf(EstimateTts);
    expect(tts.name).toBe('estimate');
    expect(await tts.duration('Hello')).toBe(300 + 5 * 65);
  });

  it.runIf(espeakInstalled)("'espeak' with espeak-ng gives an EspeakTts", async () => {
    const tts = await createTextToSpeech('espeak');
    expect(tts).toBeInstanceOf(EspeakTts);
    expect(tts.name).toBe('espeak');
  });
});

describe('TtsUnavailableError', () => {
  it('names the engine and the Debian packages, and points to --tts estimate', () => {
    const error = new TtsUnavailableError('say', ['festival', 'festvox-kallpc16k'], 'festival');
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('TtsUnavailableError');
    expect(error.engine).toBe('say');
    expect(error.debianPackages).toEqual(['festival', 'festvox-kallpc16k']);
    expect(error.message).toContain("'apt-get install festival festvox-kallpc16k'");
    expect(error.message).toContain('--tts estimate');
  });
});

describe('EspeakTts.create', () => {
  it('throws TtsUnavailableError naming the package when the program is not there', () => {
    let thrown: unknown;
    try {
      EspeakTts.create('/nonexistent/espeak');
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(TtsUnavailableError);
    const error = thrown as TtsUnavailableError;
    expect(error.engine).toBe('espeak');
    expect(error.debianPackages).toEqual(['espeak-ng']);
    expect(error.message).toContain('apt-get install espeak-ng');
    expect(error.message).toContain('/nonexistent/espeak');
  });
});

describe('EspeakTts.wavDurationMs', () => {
  it('8000 Hz mono 16-bit, 4000 samples → 500 ms', () => {
    expect(EspeakTts.wavDurationMs(wav(1, 8_000, '16', 4_000))).toBe(500);
  });

  it('counts frames, not samples: 44.1 kHz stereo 16-bit, 44100 frames → 1000 ms', () => {
    expect(EspeakTts.wavDurationMs(wav(2, 44_100, '16', 44_100))).toBe(1_000);
  });

  it('reads the sample size: 22050 Hz mono 8-bit and 32-bit, 11025 frames → 500 ms', () => {
    expect(EspeakTts.wavDurationMs(wav(1, 22_050, '8', 11_025))).toBe(500);
    expect(EspeakTts.wavDurationMs(wav(1, 22_050, '32', 11_025))).toBe(500);
  });

  it('an empty WAV lasts 0 ms', () => {
    expect(EspeakTts.wavDurationMs(wav(1, 16_000, '16', 0))).toBe(0);
  });
});

describe.skipIf(skipEspeak)('EspeakTts renders (needs espeak-ng)', () => {
  const sentence = 'The patient in room twelve needs a nurse right away.';

  it('a ten-word sentence takes a plausible time, in whole ms', async () => {
    const tts = EspeakTts.create();
    const ms = await tts.duration(sentence);
    expect(Number.isInteger(ms)).toBe(true);
    expect(ms).toBeGreaterThan(500);
    expect(ms).toBeLessThan(10_000);
  });

  it('a longer text takes longer', async () => {
    const tts = EspeakTts.create();
    const short = await tts.duration('Spill.');
    const long = await tts.duration(sentence);
    expect(long).toBeGreaterThan(short);
  });

  it('renders a text once: asking twice gives the same promise and value', async () => {
    const tts = EspeakTts.create();
    const first = tts.duration(sentence);
    const second = tts.duration(sentence);
    expect(second).toBe(first);
    expect(await second).toBe(await first);
    expect(await tts.duration(sentence)).toBe(await first);
  });
});

describe('SayTts', () => {
  const festivalNeeded = process.platform === 'linux';
  const festivalInstalled = runs('festival');

  it.runIf(festivalNeeded)(
    'create() without festival throws TtsUnavailableError naming festival',
    () => {
      const missing = '/nonexistent/festival';
      expect(() => SayTts.create(missing)).toThrow(TtsUnavailableError);
      expect(() => SayTts.create(missing)).toThrow(/apt-get install festival festvox-kallpc16k/);
    },
  );

  // CI installs festival (.ci/run); a laptop without it skips this one.
  it.runIf(!festivalNeeded || festivalInstalled || process.env.CI === 'true')(
    'create() succeeds and the play time is the estimate',
    () => {
      const tts = SayTts.create();
      const text = 'Code blue in ward three';
      expect(tts.name).toBe('say');
      expect(tts.duration(text)).toBe(new EstimateTts().duration(text));
    },
  );
});
