// Reading an HTTP answer with limits: a body never grows past a cap, an SSE stream is split into
// lines on the bytes (each byte looked at once, whatever the chunking), a line or an event larger
// than the cap is an error, and comments (keep-alives) are told apart from data so that only data
// counts as progress. Without this an endless body fills memory, and an endless line or a stream of
// keep-alives keeps a request alive forever.

export class BodyLimitError extends Error {
  override name = 'BodyLimitError';
}

/** Up to `max` bytes of `res`'s body as text; `truncated` when there was more (the rest is not read). */
export async function readCapped(res: Response, max: number): Promise<{ text: string; truncated: boolean }> {
  if (!res.body) return { text: '', truncated: false };
  const reader = res.body.getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  let truncated = false;
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      if (size + value.length > max) {
        parts.push(value.subarray(0, max - size));
        size = max;
        truncated = true;
        break;
      }
      parts.push(value);
      size += value.length;
    }
  } finally {
    reader.cancel().catch(() => {});
  }
  return { text: Buffer.concat(parts, size).toString('utf8'), truncated };
}

export interface SseLimits {
  /** Largest line, and largest event (its data lines joined), in bytes. */
  maxEventBytes: number;
  /** Largest whole stream, in bytes. */
  maxStreamBytes: number;
}

/**
 * Reads an SSE body, calling `onData` with the data of each event (the text of its `data:` lines
 * joined by "\n"). `onData` returns true to stop reading. Returns whether the stream ended by itself.
 */
export async function readSse(
  body: ReadableStream<Uint8Array>,
  limits: SseLimits,
  onData: (data: string) => boolean,
): Promise<boolean> {
  const reader = body.getReader();
  let pending: Uint8Array[] = [];
  let pendingBytes = 0;
  let total = 0;
  let data: string[] = [];
  let dataBytes = 0;
  let stop = false;
  const dispatch = () => {
    if (!data.length) return;
    const d = data.join('\n');
    data = [];
    dataBytes = 0;
    stop = onData(d);
  };
  const line = (bytes: Uint8Array) => {
    let end = bytes.length;
    if (end && bytes[end - 1] === 0x0d) end--;
    if (end === 0) return dispatch();
    if (bytes[0] === 0x3a) return; // ":" a comment: keep-alive, not progress
    const l = Buffer.from(bytes.buffer, bytes.byteOffset, end).toString('utf8');
    const colon = l.indexOf(':');
    const field = colon < 0 ? l : l.slice(0, colon);
    if (field !== 'data') return;
    let value = colon < 0 ? '' : l.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    dataBytes += value.length + 1;
    if (dataBytes > limits.maxEventBytes)
      throw new BodyLimitError(`a stream event is larger than ${limits.maxEventBytes} bytes`);
    data.push(value);
  };
  try {
    while (!stop) {
      const { value, done } = await reader.read();
      if (done) {
        if (pendingBytes) line(Buffer.concat(pending, pendingBytes));
        dispatch();
        return true;
      }
      total += value.length;
      if (total > limits.maxStreamBytes)
        throw new BodyLimitError(`the stream is longer than ${limits.maxStreamBytes} bytes`);
      let start = 0;
      for (let nl = value.indexOf(0x0a); nl !== -1 && !stop; nl = value.indexOf(0x0a, start)) {
        if (pendingBytes) {
          pending.push(value.subarray(start, nl));
          const whole = Buffer.concat(pending, pendingBytes + nl - start);
          pending = [];
          pendingBytes = 0;
          if (whole.length > limits.maxEventBytes)
            throw new BodyLimitError(`a stream line is longer than ${limits.maxEventBytes} bytes`);
          line(whole);
        } else {
          if (nl - start > limits.maxEventBytes)
            throw new BodyLimitError(`a stream line is longer than ${limits.maxEventBytes} bytes`);
          line(value.subarray(start, nl));
        }
        start = nl + 1;
      }
      if (!stop && start < value.length) {
        pendingBytes += value.length - start;
        if (pendingBytes > limits.maxEventBytes)
          throw new BodyLimitError(`a stream line is longer than ${limits.maxEventBytes} bytes (no newline)`);
        pending.push(value.slice(start));
      }
    }
    return false;
  } finally {
    reader.cancel().catch(() => {});
  }
}
