/**
 * The local engine's answer as OpenAI streams it: per choice a role chunk, then content deltas or tool-call deltas
 * (the first of each call with index, id, type, name and empty arguments, then arguments), a finish chunk per
 * choice, and last the usage chunk (the chat task drops it when the caller did not ask for usage).
 */
import type { ChatAnswer, ChatChunk } from '../../provider.types';
import type { ChoiceEvent, LocalOutput } from './local-chat';

type Delta = ChatChunk['choices'][number]['delta'];

export class ChatChunkWriter {
  private readonly opened = new Set<number>();
  // Events arrive synchronously; chaining keeps the chunks in order while each hand-off awaits Redis.
  private delivered: Promise<void> = Promise.resolve();

  constructor(
    private readonly output: LocalOutput,
    private readonly onChunk: (chunk: ChatChunk) => Promise<void>,
  ) {}

  /** A piece of a choice, as it is generated. */
  write(event: ChoiceEvent): void {
    this.open(event.index);
    this.send(event.index, this.deltaOf(event));
  }

  /** The finish of every choice, then the usage; resolves once every chunk has been handed on. */
  async finish(answer: ChatAnswer): Promise<void> {
    for (const choice of answer.choices) {
      this.open(choice.index);
      this.send(choice.index, {}, choice.finish_reason);
    }
    const usage = {
      prompt_tokens: answer.promptTokens,
      completion_tokens: answer.completionTokens,
      total_tokens: answer.promptTokens + answer.completionTokens,
    };
    this.enqueue({ object: 'chat.completion.chunk', choices: [], usage });
    await this.delivered;
  }

  /** Waits for the chunks handed on so far (after a failure, before it is reported). */
  settled(): Promise<void> {
    return this.delivered.catch(() => undefined);
  }

  private open(index: number): void {
    if (this.opened.has(index)) return;
    this.opened.add(index);
    // A tool-call answer has no content, as OpenAI's role chunk says.
    this.send(index, { role: 'assistant', content: this.output.kind === 'calls' ? null : '', refusal: null });
  }

  private deltaOf(event: ChoiceEvent): Delta {
    if (event.type === 'content') return { content: event.text };
    const { call } = event;
    const legacy = this.output.kind === 'calls' && this.output.legacy;
    if (call.type === 'start') {
      return legacy
        ? { function_call: { name: call.name, arguments: '' } }
        : {
            tool_calls: [
              { index: call.index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } },
            ],
          };
    }
    return legacy
      ? { function_call: { arguments: call.text } }
      : { tool_calls: [{ index: call.index, function: { arguments: call.text } }] };
  }

  private send(index: number, delta: Delta, finishReason: string | null = null): void {
    this.enqueue({
      object: 'chat.completion.chunk',
      choices: [{ index, delta, logprobs: null, finish_reason: finishReason }],
    });
  }

  private enqueue(chunk: ChatChunk): void {
    this.delivered = this.delivered.then(() => this.onChunk(chunk));
  }
}
