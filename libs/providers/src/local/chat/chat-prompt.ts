/**
 * An OpenAI conversation as the local chat model reads it: system, user and assistant turns of plain text (the
 * model's chat template knows no other roles). Tool calls and their results are written out in the format the
 * model generates calls in (tool-choice.ts), and what the answer must be (tool calls, JSON) is said in the system
 * turn, beside the caller's own.
 */
import type { ChatContentPart, ChatMessage, ChatRequestBody, ChatResponseFormat } from '@gateway/contracts';
import { ProviderError } from '../../provider.types';
import type { LocalChatMessage } from '../models/local-model-host';
import type { LocalTool, ToolPlan } from './tool-choice';

export function renderPrompt(request: ChatRequestBody, plan: ToolPlan): LocalChatMessage[] {
  const rendered: LocalChatMessage[] = [];
  const callNames = new Map<string, string>(); // tool_call_id → function name, for the results
  let results: string[] = [];
  const flushResults = () => {
    if (results.length === 0) return;
    const these = results.length === 1 ? 'this result' : 'these results';
    rendered.push({ role: 'user', content: `${results.join('\n')}\nAnswer the question using ${these}.` });
    results = [];
  };
  request.messages.forEach((message, m) => {
    if (message.role === 'tool' || message.role === 'function') {
      const name = message.role === 'function' ? message.name : callNames.get(message.tool_call_id ?? '');
      results.push(`Result of ${name ?? 'the tool'}: ${textOf(message, m)}`);
      return;
    }
    flushResults();
    switch (message.role) {
      case 'system':
      case 'developer':
        rendered.push({ role: 'system', content: textOf(message, m) });
        return;
      case 'user':
        rendered.push({ role: 'user', content: textOf(message, m) });
        return;
      case 'assistant': {
        for (const call of message.tool_calls ?? []) callNames.set(call.id, call.function.name);
        const calls = [...(message.tool_calls ?? []).map((call) => call.function)];
        if (message.function_call) calls.push(message.function_call);
        const text = textOf(message, m) || (message.refusal ?? '');
        const content = [text, calls.length > 0 ? renderCalls(calls) : ''].filter(Boolean).join('\n');
        rendered.push({ role: 'assistant', content });
        return;
      }
      default:
        throw new ProviderError(
          `messages[${m}].role ${String(message.role)} is not one the local model takes`,
          'request',
        );
    }
  });
  flushResults();
  const instructions = answerInstructions(plan, request.response_format);
  if (!instructions) return rendered;
  if (rendered[0]?.role === 'system') {
    return [{ role: 'system', content: `${rendered[0].content}\n\n${instructions}` }, ...rendered.slice(1)];
  }
  return [{ role: 'system', content: instructions }, ...rendered];
}

/** Calls as the model writes them: `[{"name": …, "arguments": {…}}]`. */
function renderCalls(calls: { name: string; arguments: string }[]): string {
  return JSON.stringify(calls.map((call) => ({ name: call.name, arguments: parsedOrText(call.arguments) })));
}

/** The system turn's words on what to answer: the tools and their format, or the JSON asked for. */
function answerInstructions(plan: ToolPlan, format: ChatResponseFormat | undefined): string | null {
  if (plan.kind === 'calls') return toolInstructions(plan.tools);
  if (format?.type === 'json_object') return 'Answer in JSON.';
  if (format?.type === 'json_schema') {
    const { name, description, schema } = format.json_schema;
    const about = description ? ` (${description})` : '';
    const shape = schema ? ` that matches this JSON Schema:\n${JSON.stringify(withoutMeta(schema))}` : '';
    return `Answer with ${name}${about} in JSON${shape}`;
  }
  return null;
}

// The wording SmolLM2's tool-calling data uses, shortened.
function toolInstructions(tools: LocalTool[]): string {
  const listed = tools.map(({ name, description, parameters }) => ({
    name,
    ...(description ? { description } : {}),
    parameters: withoutMeta(parameters),
  }));
  return [
    'You are an expert in composing functions. You are given a question and a set of possible functions. Based on the question, you will need to make one or more function/tool calls to achieve the purpose.',
    `You have access to the following tools:\n<tools>${JSON.stringify(listed)}</tools>`,
    'Answer with the tool calls as a JSON list and nothing else, in this format:\n[{"name": "func_name1", "arguments": {"argument1": "value1", "argument2": "value2"}}]',
  ].join('\n\n');
}

/** The text of a message's content; a part the model cannot read is refused by name. */
function textOf(message: ChatMessage, m: number): string {
  const { content } = message;
  if (content === undefined || content === null) return '';
  if (typeof content === 'string') return content;
  return content.map((part, p) => partText(part, `messages[${m}].content[${p}]`)).join('');
}

function partText(part: ChatContentPart, at: string): string {
  if (part.type === 'text') return part.text;
  if (part.type === 'refusal') return part.refusal;
  throw new ProviderError(`${at} is of type ${part.type}; the local model reads text parts only`, 'request');
}

function parsedOrText(json: string): unknown {
  try {
    return JSON.parse(json);
  } catch {
    return json;
  }
}

function withoutMeta(schema: Record<string, unknown>): Record<string, unknown> {
  const { $schema, ...rest } = schema;
  void $schema;
  return rest;
}
