/**
 * Reads the local model's tool-call list (`[{"name": …, "arguments": {…}}, …]`, generated under toolCallGrammar)
 * as it is generated, and says what OpenAI's stream says of it: a call starts (index, id, name), its arguments
 * grow. The same reader makes the non-streamed answer from the whole text, so both agree.
 *
 * The arguments are the model's text as generated, not re-serialised, so the streamed pieces add up to them. A
 * call that repeats an earlier one exactly (the small model's habit) is dropped: it is held back while it could
 * still be a repeat, and starts once it differs or ends.
 */
import { randomBase62 } from '@gateway/common';

export type ToolCallEvent =
  { type: 'start'; index: number; id: string; name: string } | { type: 'arguments'; index: number; text: string };

export interface ReadToolCall {
  id: string;
  name: string;
  /** The arguments as generated: a JSON object. */
  arguments: string;
}

interface CallSoFar {
  nameLiteral: string;
  name?: string;
  /** The arguments text so far, and the same without whitespace outside strings, to recognise a repeat. */
  text: string;
  canonical: string;
  done: boolean;
  started?: { index: number; id: string; sent: number };
  dropped: boolean;
}

/** Where the reader is in the list: which key's value it reads, at which depth. */
type Field = 'name' | 'arguments' | 'other' | null;

const WHITESPACE = /\s/;

export class ToolCallReader {
  private readonly calls: CallSoFar[] = [];
  private depth = 0;
  private inString = false;
  private escaped = false;
  private readingKey = false;
  private key = '';
  private field: Field = null;
  private started = 0;
  private listClosed = false;

  constructor(private readonly newCallId: () => string = () => `call_${randomBase62(24)}`) {}

  /** The list was closed: every call in it is whole. */
  get complete(): boolean {
    return this.listClosed;
  }

  /** The calls started so far, in order, with their arguments so far. */
  get result(): ReadToolCall[] {
    return this.calls.flatMap((call) =>
      call.started && call.name !== undefined ? [{ id: call.started.id, name: call.name, arguments: call.text }] : [],
    );
  }

  push(text: string): ToolCallEvent[] {
    for (const char of text) {
      const call = this.calls.at(-1);
      if (call && this.depth >= 2) this.readInCall(char, call);
      else this.readInList(char);
    }
    return this.release();
  }

  /** Between the calls: the list opens, a call opens, the list closes. */
  private readInList(char: string): void {
    if (char === '[' || char === '{') {
      this.depth++;
      if (this.depth === 2) {
        this.calls.push({ nameLiteral: '', text: '', canonical: '', done: false, dropped: false });
        this.field = null;
      }
    } else if (char === ']' || char === '}') {
      this.depth--;
      if (this.depth === 0) this.listClosed = true;
    }
  }

  /** Inside a call object (depth 2) and its arguments (depth 3 and deeper). */
  private readInCall(char: string, call: CallSoFar): void {
    // Inside the arguments object every character is the arguments' text.
    if (this.field === 'arguments' && this.depth >= 3) {
      call.text += char;
      if (this.inString || !WHITESPACE.test(char)) call.canonical += char;
    }
    if (this.inString) {
      if (this.escaped) this.escaped = false;
      else if (char === '\\') this.escaped = true;
      else if (char === '"') this.inString = false;
      if (this.readingKey) {
        if (this.inString) this.key += char;
        else this.readingKey = false;
      } else if (this.field === 'name' && this.depth === 2) {
        call.nameLiteral += char;
        if (!this.inString) call.name = JSON.parse(call.nameLiteral) as string;
      }
      return;
    }
    switch (char) {
      case '"':
        this.inString = true;
        if (this.depth === 2 && this.field === null) {
          this.readingKey = true;
          this.key = '';
        } else if (this.depth === 2 && this.field === 'name') {
          call.nameLiteral = '"';
        }
        return;
      case ':':
        if (this.depth === 2 && this.field === null) {
          this.field = this.key === 'name' ? 'name' : this.key === 'arguments' ? 'arguments' : 'other';
        }
        return;
      case ',':
        if (this.depth === 2) this.field = null;
        return;
      case '[':
      case '{':
        this.depth++;
        if (this.depth === 3 && this.field === 'arguments') {
          call.text = char;
          call.canonical = char;
        }
        return;
      case ']':
      case '}':
        this.depth--;
        if (this.depth === 2 && this.field === 'arguments') call.done = true;
        if (this.depth === 1) {
          call.done = true;
          this.field = null;
        }
        return;
    }
  }

  /** Starts the calls that can no longer be repeats, and hands on the arguments text of started calls. */
  private release(): ToolCallEvent[] {
    const events: ToolCallEvent[] = [];
    for (const call of this.calls) {
      if (call.dropped || call.name === undefined) continue;
      if (!call.started) {
        const earlier = this.calls.filter((other) => other.started && other.name === call.name);
        if (call.done && earlier.some((other) => other.done && other.canonical === call.canonical)) {
          call.dropped = true;
          continue;
        }
        if (!call.done && earlier.some((other) => other.canonical.startsWith(call.canonical))) continue;
        call.started = { index: this.started++, id: this.newCallId(), sent: 0 };
        events.push({ type: 'start', index: call.started.index, id: call.started.id, name: call.name });
      }
      const { started } = call;
      if (call.text.length > started.sent) {
        events.push({ type: 'arguments', index: started.index, text: call.text.slice(started.sent) });
        started.sent = call.text.length;
      }
    }
    return events;
  }
}
