/** Ready-made model configurations: taps through badges (clips as long as the estimate engine says) or straight to the service. */
import { EstimateTts } from '../simulator/tts/engine.ts';
import type { AlertTexts, ModelConfig } from './lifecycle-state.ts';

const estimate = new EstimateTts();

export function badgeConfig(users: readonly string[], texts: AlertTexts): ModelConfig {
  return { users, taps: 'badge', clipMs: (text) => estimate.duration(text), texts };
}

export function serviceConfig(users: readonly string[], texts: AlertTexts): ModelConfig {
  return { users, taps: 'service', clipMs: () => 0, texts };
}
