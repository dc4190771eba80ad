/**
 * What a badge sends, read and checked: JSON text, a known frame type, the schema of that
 * type. A valid frame is returned as parsed; anything else is a `FrameProblem`, the error
 * frame's fields, made only for a frame that is refused.
 */
import {
  type BadgeFrame,
  ButtonFrame,
  HandledFrame,
  HelloFrame,
  StateFrame,
  WakeFrame,
} from '../protocol/device-frames.schema.ts';
import { fieldPath, type ValidateFunction, validatorOf } from '../protocol/validator.ts';

/**
 * One validator a frame type. A Map, never a plain object: the type is whatever a client sent,
 * and `validators["valueOf"]` on an object literal is Object.prototype's function.
 */
const validators: ReadonlyMap<string, ValidateFunction> = new Map<
  BadgeFrame['type'],
  ValidateFunction
>([
  ['hello', validatorOf(HelloFrame)],
  ['button', validatorOf(ButtonFrame)],
  ['state', validatorOf(StateFrame)],
  ['wake', validatorOf(WakeFrame)],
  ['handled', validatorOf(HandledFrame)],
]);

/** Why a frame was refused whole: the error frame's code, message, field and `in_reply_to`. */
export class FrameProblem {
  constructor(
    readonly code: string,
    readonly message: string,
    readonly field?: string,
    readonly inReplyTo?: number,
  ) {}
}

/** A badge's message as a valid frame, or the problem that refuses it. */
export function readBadgeFrame(text: string, isBinary: boolean): BadgeFrame | FrameProblem {
  if (isBinary) return new FrameProblem('invalid_frame', 'frames are JSON text, not binary');
  let frame: unknown;
  try {
    frame = JSON.parse(text);
  } catch {
    return new FrameProblem('invalid_json', 'the frame is not valid JSON');
  }
  const type =
    typeof frame === 'object' && frame !== null && Object.hasOwn(frame, 'type')
      ? (frame as { type: unknown }).type
      : undefined;
  const validate = typeof type === 'string' ? validators.get(type) : undefined;
  if (!validate) {
    return new FrameProblem(
      'unknown_frame',
      `unknown frame type ${JSON.stringify(type) ?? 'none'}; expected one of ${[...validators.keys()].join(', ')}`,
      'type',
      readableSeq(frame),
    );
  }
  if (!validate(frame)) {
    const error = validate.errors![0]!;
    const field = fieldPath(error) || undefined;
    return new FrameProblem(
      'invalid_frame',
      `${type}: ${field ?? 'frame'} ${error.message}`,
      field,
      readableSeq(frame),
    );
  }
  return frame as BadgeFrame;
}

/** The `seq` of a frame refused whole, when it is one (a non-negative safe integer). */
function readableSeq(frame: unknown): number | undefined {
  if (typeof frame !== 'object' || frame === null || !Object.hasOwn(frame, 'seq')) return undefined;
  const { seq } = frame as { seq: unknown };
  return typeof seq === 'number' && Number.isSafeInteger(seq) && seq >= 0 ? seq : undefined;
}
