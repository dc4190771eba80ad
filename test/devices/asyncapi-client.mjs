// A badge written only from the device protocol's AsyncAPI document (GET /_stub/asyncapi.json),
// as someone implementing a badge elsewhere would: plain JavaScript, `ws` and the document,
// nothing of badge-sim. Where it connects, which protocol version it states, what each frame
// must hold and which frames it answers with `handled` all come from the document.
import WebSocket from 'ws';

/** The document's messages by the `type` their payload fixes. */
function messagesByType(document) {
  const byType = new Map();
  for (const message of Object.values(document.channels.device.messages)) {
    byType.set(message.payload.properties.type.const, message);
  }
  return byType;
}

/**
 * Connects one badge and says `hello`. Returns a badge with `next(type)` (the next frame of that
 * type the stub sends), `send(frame)` (numbered here but `handled`, checked against the document's required
 * fields) and `close()`.
 */
export async function connectBadge(document, { deviceId, key, tls }) {
  const server = document.servers.stub;
  const url = `${server.protocol}://${server.host}${document.channels.device.address}`;
  const messages = messagesByType(document);
  const socket = new WebSocket(url, tls ?? {});
  await new Promise((resolve, reject) => {
    socket.once('open', resolve);
    socket.once('error', reject);
  });
  let seq = 0;
  let clockMode = 'virtual';
  const heard = [];
  const waiting = [];
  const send = (frame) => {
    const message = messages.get(frame.type);
    if (!message) throw new Error(`the document has no frame '${frame.type}'`);
    // `handled` carries the seq of the frame it answers; every other frame is numbered here.
    const numbered = frame.type === 'handled' ? frame : { ...frame, seq: seq++ };
    for (const field of message.payload.required ?? []) {
      if (!(field in numbered)) throw new Error(`${frame.type} needs '${field}'`);
    }
    socket.send(JSON.stringify(numbered));
  };
  socket.on('message', (data) => {
    const frame = JSON.parse(String(data));
    if (frame.type === 'welcome' || frame.type === 'clock') clockMode = frame.mode;
    // Only a virtual clock waits for answers (the document's description).
    if (messages.get(frame.type)?.['x-answered-with-handled'] && clockMode === 'virtual') {
      send({ type: 'handled', seq: frame.seq });
    }
    const waiter = waiting.findIndex((w) => w.type === frame.type);
    if (waiter >= 0) waiting.splice(waiter, 1)[0].resolve(frame);
    else heard.push(frame);
  });
  const next = (type) => {
    const index = heard.findIndex((frame) => frame.type === type);
    if (index >= 0) return Promise.resolve(heard.splice(index, 1)[0]);
    return new Promise((resolve) => waiting.push({ type, resolve }));
  };
  send({ type: 'hello', protocol: Number(document.info.version), device_id: deviceId, key });
  return {
    next,
    send,
    close: () => socket.close(1000),
  };
}
