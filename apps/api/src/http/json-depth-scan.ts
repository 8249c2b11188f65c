/**
 * How deep a JSON text nests, counted as its bytes arrive, so that a body nested too deep is refused before
 * JSON.parse (whose recursion it would exhaust: a 500 from 3,000 levels on, and 2.3 s of a stalled event loop for
 * 2 million) and before the rest of it is even read. One pass over the bytes outside strings; a string's contents are
 * skipped with Buffer.indexOf, so a 45 MB base64 image costs a few memchr calls, not 45 million steps.
 */
export class JsonDepthScan {
  /**
   * Deeper than anything the gateway takes: a chat request with a tool's JSON schema is about 10 levels before the
   * schema's own, and a Responses input about as many; 64 leaves room for schemas nested 50 deep.
   */
  static readonly MAX_DEPTH = 64;

  private depth = 0;
  private inString = false;
  /** The previous chunk ended inside a string on a backslash: the next byte is escaped. */
  private escapePending = false;

  /** Feeds the next chunk; false once the text has gone deeper than MAX_DEPTH. */
  feed(chunk: Buffer): boolean {
    let i = 0;
    const end = chunk.length;
    if (this.escapePending) {
      this.escapePending = false;
      i = 1;
    }
    while (i < end) {
      if (this.inString) {
        const quote = chunk.indexOf(QUOTE, i);
        if (quote === -1) {
          this.escapePending = escapedRun(chunk, i, end);
          return true;
        }
        if (!escapedRun(chunk, i, quote)) this.inString = false;
        i = quote + 1;
        continue;
      }
      const byte = chunk[i++];
      if (byte === QUOTE) this.inString = true;
      else if (byte === OPEN_BRACE || byte === OPEN_BRACKET) {
        if (++this.depth > JsonDepthScan.MAX_DEPTH) return false;
      } else if (byte === CLOSE_BRACE || byte === CLOSE_BRACKET) this.depth--;
    }
    return true;
  }
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

/**
 * An odd run of backslashes ends just before `at`, so the byte at `at` is escaped. The run is counted back no further
 * than `from`, where the scan resumed in a state known not to be escaping.
 */
function escapedRun(chunk: Buffer, from: number, at: number): boolean {
  let backslashes = 0;
  for (let j = at - 1; j >= from && chunk[j] === BACKSLASH; j--) backslashes++;
  return backslashes % 2 === 1;
}
