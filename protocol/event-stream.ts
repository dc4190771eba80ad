/**
 * Reading server-sent events (the live stream, `GET /_stub/stream`): text in, messages out.
 * Shared by `StubControlClient.stream` and the dashboard's page, so it imports nothing.
 */

export interface EventStreamMessage {
  /** The `event:` name (`snapshot`, `update`). */
  name: string;
  /** The `data:` lines, joined. */
  data: string;
}

/** Splits an event stream's text, as it arrives in pieces, into its messages. */
export class EventStreamParser {
  #buffer = '';

  /** The messages completed by this piece of text. */
  push(text: string): EventStreamMessage[] {
    this.#buffer += text;
    const messages: EventStreamMessage[] = [];
    for (let end = this.#buffer.indexOf('\n\n'); end >= 0; end = this.#buffer.indexOf('\n\n')) {
      const block = this.#buffer.slice(0, end);
      this.#buffer = this.#buffer.slice(end + 2);
      let name = 'message';
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line.startsWith('event: ')) name = line.slice(7);
        else if (line.startsWith('data: ')) data.push(line.slice(6));
      }
      if (data.length > 0) messages.push({ name, data: data.join('\n') });
    }
    return messages;
  }
}
