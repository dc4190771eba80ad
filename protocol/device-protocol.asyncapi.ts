/**
 * The device protocol as an AsyncAPI 3.0 document, generated from the frame schemas of
 * `device-frames.schema.ts` (decision 1: a frame's shape is written once, there). The stub
 * serves it at `GET /_stub/asyncapi.json` and the build ships it as `dist/asyncapi.json`
 * (export `badge-sim/asyncapi.json`), so a badge can be written in another language, or its
 * frames checked, with standard AsyncAPI tools. docs/device-protocol.md is the prose.
 *
 * The document describes the stub (the application that serves the channel): a `receive`
 * operation is a frame a badge sends, a `send` operation one the stub sends (decision D17).
 */
import type { TSchema } from 'typebox';
import {
  BroadcastFrame,
  ButtonFrame,
  CLOSE_CODES,
  ClockFrame,
  DEVICE_PROTOCOL_VERSION,
  DEVICE_WS_PATH,
  ErrorFrame,
  HandledFrame,
  HelloFrame,
  PlayFrame,
  SpeakFrame,
  StateFrame,
  StopFrame,
  WakeFrame,
  WelcomeFrame,
} from './device-frames.schema.ts';

/** Where the document's server points when it is not served by a stub (the CLI's default). */
export const ASYNCAPI_DEFAULT_HOST = '127.0.0.1:8080';

interface FrameMessage {
  schema: TSchema;
  summary: string;
  /** Who sends it: the badge, the stub, or both (`handled`). */
  from: 'badge' | 'stub' | 'both';
}

const ANSWERED =
  'The receiver answers it with `handled` (same `seq`) once it has dealt with it and sent what it caused; on a real or scaled clock badges answer nothing.';

/** Every frame of the protocol, by its `type`, in the order docs/device-protocol.md lists them. */
const FRAMES: Record<string, FrameMessage> = {
  hello: {
    schema: HelloFrame,
    from: 'badge',
    summary: `The first frame, within 10 s of connecting: the stub answers \`welcome\`, then plays every alert the device is playing now. ${ANSWERED}`,
  },
  button: {
    schema: ButtonFrame,
    from: 'badge',
    summary: `A tap. \`single\` acknowledges \`task_id\`, or without it the alert the device played most recently; other taps do nothing. ${ANSWERED}`,
  },
  state: {
    schema: StateFrame,
    from: 'badge',
    summary:
      'Telemetry: the badge state, and battery or location when they change. Never answered.',
  },
  wake: {
    schema: WakeFrame,
    from: 'badge',
    summary: `Asks for a \`clock\` frame when the stub's clock reaches \`at\`; replaces the previous wake. ${ANSWERED}`,
  },
  handled: {
    schema: HandledFrame,
    from: 'both',
    summary:
      'Answers the frame of that `seq` (any frame but `handled`, `error` and `state`): it was dealt with and what it caused was sent. A virtual clock waits for it.',
  },
  welcome: {
    schema: WelcomeFrame,
    from: 'stub',
    summary: `The hello was accepted. ${ANSWERED}`,
  },
  play: {
    schema: PlayFrame,
    from: 'stub',
    summary: `Play the alert (again): every 30 s until stopped. ${ANSWERED}`,
  },
  broadcast: {
    schema: BroadcastFrame,
    from: 'stub',
    summary: `Play once; nothing to acknowledge. ${ANSWERED}`,
  },
  stop: { schema: StopFrame, from: 'stub', summary: `Stop that alert now. ${ANSWERED}` },
  speak: { schema: SpeakFrame, from: 'stub', summary: `Say the text (after stop). ${ANSWERED}` },
  clock: {
    schema: ClockFrame,
    from: 'stub',
    summary: `The stub's clock: for a wake, and after a jump or a mode switch. ${ANSWERED}`,
  },
  error: {
    schema: ErrorFrame,
    from: 'stub',
    summary:
      'Something the badge sent was refused (`field` names what, `in_reply_to` its seq when readable). The connection stays open but after a refused hello (4001) or a flood (4009). Never answered.',
  },
};

/** The frames nobody answers with `handled`: answers, refusals and telemetry. */
const UNANSWERED = new Set(['handled', 'error', 'state']);

/** What each close code of the protocol means (docs/device-protocol.md, "Connection"). */
const CLOSE_CODE_MEANINGS: Record<keyof typeof CLOSE_CODES, string> = {
  refused: 'hello refused: unknown device, wrong or missing key, other protocol version',
  helloTimeout: 'no hello within 10 s',
  replaced: 'the same device connected again; this older connection is closed',
  tooSlow: 'the badge does not read what it is sent: more than 1 MiB waited for it',
  tooManyBadFrames: 'more bad frames in a second than the stub answers (20)',
  claimed: "device_claimed: the device is online in another fleet's session; try again shortly",
  shutdown: 'the stub is stopping',
};

export interface AsyncApiServer {
  /** `host:port` badges connect to. */
  host?: string;
  /** Whether the stub serves TLS (`wss`). */
  secure?: boolean;
}

type Json = Record<string, unknown>;

let base: Json | undefined;

/**
 * The AsyncAPI 3.0 document of the device protocol, its server at `host` (`ws`, or `wss` when
 * `secure`). Built on first use, then only its server changes: nothing of it runs until asked.
 */
export function deviceProtocolAsyncApi({
  host = ASYNCAPI_DEFAULT_HOST,
  secure = false,
}: AsyncApiServer = {}): Json {
  base ??= buildDocument();
  return {
    ...base,
    servers: {
      stub: {
        host,
        protocol: secure ? 'wss' : 'ws',
        description: secure
          ? 'A stub started with --tls: trust the CA file it prints.'
          : 'The stub, on its one HTTP port.',
      },
    },
  };
}

function buildDocument(): Json {
  const ref = (type: string) => ({ $ref: `#/channels/device/messages/${type}` });
  const channel = { $ref: '#/channels/device' };
  const messages: Json = {};
  const operations: Json = {};
  for (const [type, frame] of Object.entries(FRAMES)) {
    messages[type] = {
      name: type,
      title: `${type} (${frame.from === 'both' ? 'either side' : `from the ${frame.from}`})`,
      summary: frame.summary,
      contentType: 'application/json',
      // Machine-readable for a badge written from this document: answer it with `handled`?
      'x-answered-with-handled': !UNANSWERED.has(type),
      // A plain JSON copy: the schema as the validator reads it, shared with nothing.
      payload: JSON.parse(JSON.stringify(frame.schema)),
    };
    const actions = frame.from === 'both' ? ['receive', 'send'] : [actionOf(frame.from)];
    for (const action of actions) {
      operations[`${action}${type[0]!.toUpperCase()}${type.slice(1)}`] = {
        action,
        channel,
        summary: `${action === 'send' ? 'The stub sends' : 'A badge sends'} \`${type}\`.`,
        messages: [ref(type)],
        ...(type === 'hello'
          ? { reply: { channel, messages: [ref('welcome'), ref('error')] } }
          : {}),
      };
    }
  }
  return {
    asyncapi: '3.0.0',
    info: {
      title: 'badge-sim device protocol',
      version: String(DEVICE_PROTOCOL_VERSION),
      description: [
        'How a voice badge talks to the badge-sim stub: one WebSocket per badge, one JSON text message per frame.',
        `\`info.version\` is the protocol version a badge states in \`hello\` (\`protocol\`).`,
        'This document describes the stub: `receive` operations are frames a badge sends, `send` operations frames the stub sends.',
        'Every frame has a `type` and a `seq` that its sender counts up from 0 on the connection.',
        'The first frame a badge sends must be `hello`.',
        'Any frame but `handled`, `error` and `state` is answered with `{"type":"handled","seq":<its seq>}` once dealt with; while the stub\'s clock is real or scaled (`mode` of `welcome` and `clock`), badges need not answer.',
        'Each message says so in `x-answered-with-handled`. `x-close-codes` lists the WebSocket close codes. The prose: docs/device-protocol.md of the badge-sim package.',
      ].join('\n\n'),
    },
    defaultContentType: 'application/json',
    channels: {
      device: {
        address: DEVICE_WS_PATH,
        title: 'A badge’s connection',
        description: 'One WebSocket per badge; any other path gets 404.',
        messages,
        bindings: { ws: { method: 'GET', bindingVersion: '0.1.0' } },
        'x-close-codes': Object.fromEntries(
          (Object.keys(CLOSE_CODES) as (keyof typeof CLOSE_CODES)[]).map((name) => [
            String(CLOSE_CODES[name]),
            CLOSE_CODE_MEANINGS[name],
          ]),
        ),
      },
    },
    operations,
  };
}

const actionOf = (from: 'badge' | 'stub') => (from === 'badge' ? 'receive' : 'send');
