import type { ChatChoice, ChatChoiceLogprobs, ChatToolCall } from '@gateway/contracts';
import type { ChatChunk } from './provider.types';

interface ChoiceSoFar {
  content: string;
  refusal: string;
  sawContent: boolean;
  toolCalls: ChatToolCall[];
  finishReason: string | null;
  logprobs: ChatChoiceLogprobs | null;
}

type ToolCallDelta = {
  index?: number;
  id?: string;
  type?: 'function';
  function?: { name?: string; arguments?: string };
};

/**
 * Puts a streamed completion back together as OpenAI's non-streamed choices, the way the SDKs do: content and
 * refusal deltas appended, tool calls merged by `index` (the first delta carries id and name, the rest append
 * arguments), logprobs concatenated. The task's result and record are this whole completion.
 */
export class ChatStreamAccumulator {
  usage?: ChatChunk['usage'];
  systemFingerprint?: string;
  private readonly choices = new Map<number, ChoiceSoFar>();

  add(chunk: ChatChunk): void {
    if (chunk.usage) this.usage = chunk.usage;
    if (typeof chunk.system_fingerprint === 'string') this.systemFingerprint = chunk.system_fingerprint;
    for (const delta of chunk.choices ?? []) this.addChoice(delta);
  }

  /** Text generated so far, over every choice (to count tokens when an upstream reports no usage). */
  get text(): string {
    return [...this.choices.values()]
      .map((choice) => choice.content + choice.toolCalls.map((call) => call.function.arguments).join(''))
      .join('');
  }

  /** The choices in index order; `cancelled` marks a stream the client left. */
  result(cancelled = false): ChatChoice[] {
    return [...this.choices.entries()]
      .sort(([a], [b]) => a - b)
      .map(([index, choice]) => ({
        index,
        message: {
          role: 'assistant' as const,
          content: choice.sawContent || choice.toolCalls.length === 0 ? choice.content : null,
          ...(choice.refusal ? { refusal: choice.refusal } : { refusal: null }),
          ...(choice.toolCalls.length > 0 ? { tool_calls: choice.toolCalls } : {}),
        },
        finish_reason: cancelled ? 'cancelled' : (choice.finishReason ?? 'stop'),
        logprobs: choice.logprobs,
      }));
  }

  private addChoice(delta: ChatChunk['choices'][number]): void {
    const index = typeof delta.index === 'number' ? delta.index : 0;
    let choice = this.choices.get(index);
    if (!choice) {
      choice = { content: '', refusal: '', sawContent: false, toolCalls: [], finishReason: null, logprobs: null };
      this.choices.set(index, choice);
    }
    const { content, refusal, tool_calls: toolCalls } = delta.delta ?? {};
    if (typeof content === 'string') {
      choice.content += content;
      if (content) choice.sawContent = true;
    }
    if (typeof refusal === 'string') choice.refusal += refusal;
    if (Array.isArray(toolCalls)) for (const call of toolCalls as ToolCallDelta[]) mergeToolCall(choice, call);
    if (delta.finish_reason) choice.finishReason = delta.finish_reason;
    const logprobs = delta.logprobs as ChatChoiceLogprobs | null | undefined;
    if (logprobs?.content) {
      choice.logprobs ??= { content: [], refusal: null };
      choice.logprobs.content = [...(choice.logprobs.content ?? []), ...logprobs.content];
    }
  }
}

function mergeToolCall(choice: ChoiceSoFar, delta: ToolCallDelta): void {
  const position = delta.index ?? choice.toolCalls.length;
  const call = (choice.toolCalls[position] ??= { id: '', type: 'function', function: { name: '', arguments: '' } });
  if (delta.id) call.id = delta.id;
  if (delta.function?.name) call.function.name += delta.function.name;
  if (delta.function?.arguments) call.function.arguments += delta.function.arguments;
}
