/**
 * An OpenAI conversation as the local chat model reads it: system, user and assistant turns of plain text (the
 * model's chat template knows no other roles). Tool results are written into the turn of the question they answer,
 * each as the call that returned it, and what the answer must be (tool calls, JSON) is said in the system turn,
 * beside the caller's own.
 */
import type { ChatContentPart, ChatMessage, ChatRequestBody, ChatResponseFormat } from '@gateway/contracts';
import { ProviderError } from '../../provider.types';
import type { LocalChatMessage } from '../models/local-model-host';
import type { LocalTool, ToolPlan } from './tool-choice';

export function renderPrompt(request: ChatRequestBody, plan: ToolPlan): LocalChatMessage[] {
  const rendered: LocalChatMessage[] = [];
  const calls = new Map<string, string>(); // tool_call_id → `name(arguments)`, for the results
  let lastCall = ''; // a legacy function_call, answered by the next `function` message
  // Tool results join the question they answer: what a call returned, then the question, in one user turn. The
  // model then answers from them; shown its own call and a result turn after it, it repeated the call as text.
  let asked: { turn: LocalChatMessage; question: string; facts: string[] } | undefined;
  request.messages.forEach((message, m) => {
    if (message.role === 'tool' || message.role === 'function') {
      const call =
        message.role === 'function' ? lastCall || (message.name ?? 'the tool') : calls.get(message.tool_call_id ?? '');
      const fact = `${call ?? 'the tool'} returned: ${textOf(message, m)}`;
      if (!asked || rendered[rendered.length - 1] !== asked.turn) {
        asked = { turn: { role: 'user', content: '' }, question: '', facts: [] };
        rendered.push(asked.turn);
      }
      asked.facts.push(fact);
      asked.turn.content = withFacts(asked.question, asked.facts);
      return;
    }
    switch (message.role) {
      case 'system':
      case 'developer':
        rendered.push({ role: 'system', content: textOf(message, m) });
        return;
      case 'user': {
        const turn: LocalChatMessage = { role: 'user', content: textOf(message, m) };
        asked = { turn, question: turn.content, facts: [] };
        rendered.push(turn);
        return;
      }
      case 'assistant': {
        for (const call of message.tool_calls ?? []) calls.set(call.id, callText(call.function));
        if (message.function_call) lastCall = callText(message.function_call);
        // Calls are not a turn of their own: their results carry them into the question's turn.
        const text = textOf(message, m) || (message.refusal ?? '');
        if (text) rendered.push({ role: 'assistant', content: text });
        return;
      }
      default:
        throw new ProviderError(
          `messages[${m}].role ${String(message.role)} is not one the local model takes`,
          'request',
        );
    }
  });
  const instructions = answerInstructions(plan, request.response_format);
  if (!instructions) return rendered;
  if (rendered[0]?.role === 'system') {
    return [{ role: 'system', content: `${rendered[0].content}\n\n${instructions}` }, ...rendered.slice(1)];
  }
  return [{ role: 'system', content: instructions }, ...rendered];
}

/** `get_weather({"city":"Paris"})`: a call as its result is introduced. */
function callText(call: { name: string; arguments: string }): string {
  const args = parsedOrText(call.arguments);
  return `${call.name}(${typeof args === 'string' ? args : JSON.stringify(args)})`;
}

// Of the wordings tried on SmolLM2-135M (docs/decisions/local-engine.md), the question first, then the results,
// then the ask, answered from the result most often, JSON results included.
function withFacts(question: string, facts: string[]): string {
  const ask = 'Answer the question using this information.';
  return question ? `${question}\n\n${facts.join('\n')}\n${ask}` : `${facts.join('\n')}\n${ask}`;
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
