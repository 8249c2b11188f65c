import { ChatMessage, contentText } from '@gateway/contracts';

/**
 * The gateway's own token estimate for chat and image-edit prompts, where no upstream reports a count: quota
 * reservations, the local models, an upstream answer without usage; and the hash embedder's usage, whose features are
 * these words. One token per word (docs/contracts.md), so it is an estimate, not any model's tokenizer. Embeddings
 * requests are counted with a real tokenizer instead (cl100k.ts).
 */

/** Lower-case words; each CJK character counts as a word of its own. */
export function tokenize(text: string): string[] {
  return text.toLowerCase().match(/[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]|[\p{L}\p{N}]+/gu) ?? [];
}

export function countTokens(text: string): number {
  return Math.max(1, tokenize(text).length);
}

/** The estimate for a chat request's messages (text, tool calls), where no upstream reports the real count. */
export function countMessageTokens(messages: ChatMessage[]): number {
  return messages.reduce(
    (sum, message) =>
      sum +
      countTokens(contentText(message.content)) +
      (message.tool_calls ?? []).reduce((calls, call) => calls + countTokens(call.function.arguments), 0),
    0,
  );
}
