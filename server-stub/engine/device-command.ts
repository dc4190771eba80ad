/**
 * What the alert engine asks a device to do, and a transcript line of it: shared by the engine
 * and the transcript (its own module, so neither imports the other for a type).
 */

export type StopCause = 'acknowledged' | 'quorum' | 'timed_out' | 'cancelled';
export type SpeechCause = 'on_ack' | 'on_quorum' | 'on_timeout' | 'workflow';

/** What the engine asks a device to do. */
export type DeviceCommand =
  | { type: 'play'; taskId: string; name: string; text: string; repeat: number }
  | { type: 'broadcast'; taskId: string; text: string }
  | { type: 'stop'; taskId: string; cause: StopCause }
  | { type: 'speak'; taskId: string; text: string; cause: SpeechCause };

/** One line of a device's transcript: a command and when it was given. */
export type TranscriptEntry = DeviceCommand & { at: string };
