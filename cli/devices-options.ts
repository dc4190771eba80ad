import type { Shard } from '../input/shard.ts';
import type { TtsName } from '../simulator/tts/text-to-speech.ts';

/** The options of `badge-sim devices` as its command parsed them. */
export interface DevicesOptions {
  stub: string;
  controlToken?: string;
  count?: number;
  shard?: Shard;
  workers?: number;
  group?: string;
  account?: string;
  ackAfter?: string;
  ackOnRepeat?: number;
  offlineAt?: string;
  offlineFor?: string;
  vanishAt?: string;
  vanishFor?: string;
  flakyEvery?: string;
  flakyDown?: string;
  tapLose?: number;
  tapDelay?: string;
  tapDelayChance?: number;
  tapDuplicate?: number;
  tapDuplicateChance?: number;
  tapGap?: string;
  dropOnPlay?: number;
  dropChance?: number;
  dropAfter?: string;
  dropFor?: string;
  batteryFrom?: number;
  batteryDrain?: number;
  tts: TtsName;
  seed: number;
  for?: string;
  wait: string;
  giveUpAfter: string;
  quiet?: boolean;
}
