// The match's event stream, read with fetch so that a seat's token goes in a header (an
// EventSource cannot send one). It resumes after the last event it delivered whenever the
// line drops, backing off while the server is away.

const QUIET_LIMIT_MS = 45000; // the server says something at least every 15 s
const MAX_BACKOFF_MS = 10000;

function parseBlock(block) {
  const event = { id: null, type: "message", data: "" };
  for (const line of block.split("\n")) {
    if (!line || line.startsWith(":")) continue;
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
    if (field === "id") event.id = value;
    else if (field === "event") event.type = value;
    else if (field === "data") event.data += (event.data ? "\n" : "") + value;
  }
  return event.data ? event : null;
}

export class EventFeed {
  // `onEvents(list)` gets each batch that arrived together; `onState("live" |
  // "reconnecting" | "stopped")` hears how the line is.
  constructor(url, { token, after, onEvents, onState }) {
    Object.assign(this, { url, token, last: after, onEvents, onState });
    this.stopped = false;
    this.controller = null;
  }

  start() {
    this.loop();
    return this;
  }

  stop() {
    this.stopped = true;
    this.controller?.abort();
    this.onState("stopped");
  }

  async loop() {
    let backoff = 1000;
    while (!this.stopped) {
      let wait = backoff;
      try {
        await this.readOnce(() => { backoff = 1000; });
      } catch (error) {
        if (error?.retryAfter) wait = error.retryAfter * 1000;
      }
      if (this.stopped) return;
      this.onState("reconnecting");
      await new Promise((resolve) => setTimeout(resolve, wait));
      backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
    }
  }

  async readOnce(connected) {
    this.controller = new AbortController();
    const headers = { Accept: "text/event-stream", "Last-Event-ID": String(this.last) };
    if (this.token) headers.Authorization = `Bearer ${this.token}`;
    const response = await fetch(this.url, {
      headers, signal: this.controller.signal, cache: "no-store",
    });
    if (!response.ok) {
      const error = new Error(`stream answered ${response.status}`);
      error.retryAfter = Number(response.headers.get("Retry-After")) || null;
      throw error;
    }
    connected();
    this.onState("live");
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = "";
    let quiet = setTimeout(() => this.controller.abort(), QUIET_LIMIT_MS);
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        clearTimeout(quiet);
        quiet = setTimeout(() => this.controller.abort(), QUIET_LIMIT_MS);
        buffer += value.replace(/\r\n?/g, "\n");
        const blocks = buffer.split("\n\n");
        buffer = blocks.pop();
        const batch = [];
        for (const block of blocks) {
          const event = parseBlock(block);
          if (!event) continue;
          const item = JSON.parse(event.data);
          if (item.version <= this.last) continue;
          this.last = item.version;
          batch.push(item);
        }
        if (batch.length) this.onEvents(batch);
      }
    } finally {
      clearTimeout(quiet);
    }
  }
}
