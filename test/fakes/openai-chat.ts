import { createHash } from 'node:crypto';
import { schemaInstance } from './json-schemas';
import { ChatMessage, ChatRequest, ChatTool, FunctionDefinition, textOf } from './openai-chat-request';
import { documented, tokenPieces, tokensOf } from './openai-shapes';
import { OPENAI_CHARS_PER_TOKEN, OPENAI_SYSTEM_FINGERPRINT, OpenAiDialect } from './upstream-rules';

/**
 * The OpenAI fake's chat answers, deterministic per request: `n` choices; a tool call when the request asks for
 * one (or, with `tool_choice` auto, when the user just spoke), with arguments valid against the tool's schema; text
 * that echoes the user and the tool results that arrived; JSON valid against a `json_schema` response format;
 * `logprobs` when asked; `finish_reason` `length` where `max_tokens` / `max_completion_tokens` cut the answer. Streamed
 * as OpenAI streams it (chatChunks).
 */

export interface ChatAnswerOptions {
  /** Fixed text for every text answer; by default the fake echoes the last user message. */
  chatReply?: string;
  /** The fake's count of calls so far: ids and tool call ids differ between calls. */
  callNumber: number;
}

type ToolCallAnswer =
  | { id: string; type: 'function'; function: { name: string; arguments: string } }
  | { id: string; type: 'custom'; custom: { name: string; input: string } };

type FinishReason = 'stop' | 'length' | 'tool_calls' | 'function_call';

/** One choice before it is put in OpenAI's shape. */
interface PlannedChoice {
  content: string | null;
  toolCalls: ToolCallAnswer[];
  functionCall?: { name: string; arguments: string };
  finishReason: FinishReason;
}

/** What the model decides to do, the same for every choice. */
type Decision =
  | { kind: 'text'; text: string; json: boolean }
  | { kind: 'tools'; tools: ChatTool[] }
  | { kind: 'function'; definition: FunctionDefinition };

export interface ChatCompletionAnswer {
  id: string;
  object: 'chat.completion';
  created: number;
  model: string;
  choices: {
    index: number;
    message: Record<string, unknown>;
    finish_reason: FinishReason;
    logprobs: { content: TokenLogprob[] | null; refusal: null } | null;
  }[];
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
  system_fingerprint: string | null;
  service_tier?: string;
}

interface TokenLogprob {
  token: string;
  logprob: number;
  bytes: number[];
  top_logprobs: { token: string; logprob: number; bytes: number[] }[];
}

export function chatCompletion(
  request: ChatRequest,
  dialect: OpenAiDialect,
  options: ChatAnswerOptions,
): ChatCompletionAnswer {
  const decision = decide(request, options);
  const planned = Array.from({ length: request.n ?? 1 }, (_, index) => planChoice(request, decision, index, options));
  const promptTokens = promptTokensOf(request);
  const completionTokens = planned.reduce((sum, choice) => sum + completionTokensOf(choice), 0);
  return documented('chat', {
    id: `chatcmpl-fake${options.callNumber}`,
    object: 'chat.completion' as const,
    created: Math.floor(Date.now() / 1000),
    model: request.model,
    choices: planned.map((choice, index) =>
      documented('chatChoice', {
        index,
        message: messageOf(choice, dialect),
        logprobs: request.logprobs ? logprobsOf(choice, request.top_logprobs ?? 0) : null,
        finish_reason: choice.finishReason,
      }),
    ),
    usage: documented('chatUsage', {
      prompt_tokens: promptTokens,
      completion_tokens: completionTokens,
      total_tokens: promptTokens + completionTokens,
    }),
    // Compatible mode answers `system_fingerprint: null` and no service tier (OPENAI_DOCS.compatibleChatReference).
    ...(dialect === 'openai'
      ? { service_tier: serviceTierOf(request), system_fingerprint: OPENAI_SYSTEM_FINGERPRINT }
      : { system_fingerprint: null }),
  });
}

/** A chunk to send, and whether it carries a piece of the answer (what a test counts as sent). */
export interface PlannedChunk {
  data: unknown;
  piece: boolean;
}

/**
 * OpenAI's stream of a completion: per choice, a first delta with the role (and, for a tool call, its index, id,
 * type, name and empty arguments), then the content or argument fragments, then the finish reason; a last chunk
 * with the usage when `stream_options.include_usage` is set. `usage` is null on every other chunk then.
 */
export function chatChunks(whole: ChatCompletionAnswer, request: ChatRequest, dialect: OpenAiDialect): PlannedChunk[] {
  const withUsage = request.stream_options?.include_usage === true;
  const { id, created, model, system_fingerprint, service_tier } = whole;
  const chunk = (choices: unknown[], usage: unknown = null) =>
    documented('chunk', {
      id,
      object: 'chat.completion.chunk',
      created,
      model,
      ...(service_tier ? { service_tier } : {}),
      system_fingerprint,
      choices,
      ...(withUsage ? { usage } : {}),
    });
  const choiceChunk = (index: number, delta: object, finishReason: string | null = null, logprobs: unknown = null) =>
    documented('chunkChoice', { index, delta: documented('chunkDelta', delta), logprobs, finish_reason: finishReason });
  const refusal = dialect === 'openai' ? { refusal: null } : {};
  const planned: PlannedChunk[] = [];
  const push = (data: unknown, piece = false) => planned.push({ data, piece });
  for (const choice of whole.choices) {
    const { message, index } = choice;
    const toolCalls = (message.tool_calls ?? []) as ToolCallAnswer[];
    const functionCall = message.function_call as { name: string; arguments: string } | undefined;
    if (toolCalls.length > 0) {
      toolCalls.forEach((call, k) => {
        // A custom tool's call streams its `input` the way a function's streams its `arguments`.
        const [field, text, key] =
          call.type === 'function'
            ? (['function', call.function.arguments, 'arguments'] as const)
            : (['custom', call.custom.input, 'input'] as const);
        const name = call.type === 'function' ? call.function.name : call.custom.name;
        const opening = documented('chunkToolCall', {
          index: k,
          id: call.id,
          type: call.type,
          [field]: { name, [key]: '' },
        });
        const first = k === 0 ? { role: 'assistant', content: null, ...refusal } : {};
        push(chunk([choiceChunk(index, { ...first, tool_calls: [opening] })]));
        for (const fragment of argumentPieces(text)) {
          const delta = { tool_calls: [documented('chunkToolCall', { index: k, [field]: { [key]: fragment } })] };
          push(chunk([choiceChunk(index, delta)]), true);
        }
      });
    } else if (functionCall) {
      push(
        chunk([
          choiceChunk(index, { role: 'assistant', content: null, function_call: { ...functionCall, arguments: '' } }),
        ]),
      );
      for (const fragment of argumentPieces(functionCall.arguments)) {
        push(chunk([choiceChunk(index, { function_call: { arguments: fragment } })]), true);
      }
    } else {
      push(chunk([choiceChunk(index, { role: 'assistant', content: '', ...refusal })]));
      const content = (message.content as string | null) ?? '';
      // With logprobs, one token a chunk, each with its logprob; else a word a chunk.
      const tokens = choice.logprobs?.content;
      const pieces = tokens ? tokens.map((token) => token.token) : content.split(/(?<= )/).filter(Boolean);
      pieces.forEach((piece, k) => {
        const logprobs = tokens ? { content: [tokens[k]], refusal: null } : null;
        push(chunk([choiceChunk(index, { content: piece }, null, logprobs)]), true);
      });
    }
    push(chunk([choiceChunk(index, {}, choice.finish_reason)]));
  }
  if (withUsage) push(chunk([], whole.usage));
  return planned;
}

// --- deciding and planning

function decide(request: ChatRequest, options: ChatAnswerOptions): Decision {
  const last = request.messages[request.messages.length - 1];
  const userSpokeLast = last.role === 'user';
  if (request.functions?.length && request.function_call !== 'none') {
    const named = typeof request.function_call === 'object' ? request.function_call.name : undefined;
    if (named || userSpokeLast) {
      const definition =
        request.functions.find((fn) => fn.name === named) ??
        mentioned(request.functions, last)[0] ??
        request.functions[0];
      return { kind: 'function', definition };
    }
  }
  const tools = allowedTools(request);
  const choice = request.tool_choice ?? 'auto';
  if (tools.length > 0 && choice !== 'none') {
    if (typeof choice === 'object' && choice.type !== 'allowed_tools') {
      const name = choice.type === 'function' ? choice.function.name : choice.custom.name;
      return { kind: 'tools', tools: tools.filter((tool) => nameOf(tool) === name) };
    }
    const mode = typeof choice === 'object' ? choice.allowed_tools.mode : choice;
    if (mode === 'required' || userSpokeLast) {
      const named = mentioned(tools, last);
      const parallel = request.parallel_tool_calls !== false;
      return { kind: 'tools', tools: named.length === 0 ? [tools[0]] : parallel ? named : [named[0]] };
    }
  }
  return textDecision(request, options);
}

/** The tools the model may call: all of them, or those `allowed_tools` lists. */
function allowedTools(request: ChatRequest): ChatTool[] {
  const tools = request.tools ?? [];
  const choice = request.tool_choice;
  if (typeof choice !== 'object' || choice.type !== 'allowed_tools') return tools;
  const names = choice.allowed_tools.tools.map((tool) => ((tool.function ?? tool.custom) as { name: string }).name);
  return tools.filter((tool) => names.includes(nameOf(tool)));
}

function nameOf(tool: ChatTool): string {
  return tool.type === 'function' ? tool.function.name : tool.custom.name;
}

/** The tools (or functions) whose name the message mentions, in their order. */
function mentioned<T extends ChatTool | FunctionDefinition>(tools: T[], message: ChatMessage): T[] {
  const text = textOf(message);
  return tools.filter((tool) => text.includes('type' in tool ? nameOf(tool) : tool.name));
}

/**
 * Text, or JSON when the response format asks for it: an echo of the last user message, followed by what each tool
 * answered when the conversation ends with tool results.
 */
function textDecision(request: ChatRequest, options: ChatAnswerOptions): Decision {
  const lastUser = [...request.messages].reverse().find((message) => message.role === 'user');
  const echo = lastUser ? textOf(lastUser) : '';
  const results = toolResults(request.messages);
  const format = request.response_format;
  if (format?.type === 'json_schema') {
    const schema = format.json_schema.schema ?? { type: 'object' };
    return { kind: 'text', text: JSON.stringify(schemaInstance(schema, format.json_schema.name)), json: true };
  }
  if (format?.type === 'json_object') {
    const answer = { echo, ...(results.length ? { tool_results: Object.fromEntries(results) } : {}) };
    return { kind: 'text', text: JSON.stringify(answer), json: true };
  }
  const tail = results.map(([name, result]) => `; ${name} returned ${result}`).join('');
  return { kind: 'text', text: options.chatReply ?? `echo: ${echo}${tail}`, json: false };
}

/** The trailing tool (or function) messages, as [tool name, result text]. */
function toolResults(messages: ChatMessage[]): [string, string][] {
  const results: [string, string][] = [];
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i];
    if (message.role === 'function') {
      results.unshift([message.name ?? 'function', textOf(message)]);
      continue;
    }
    if (message.role !== 'tool') break;
    const call = messages
      .slice(0, i)
      .reverse()
      .flatMap((earlier) => earlier.tool_calls ?? [])
      .find((candidate) => candidate.id === message.tool_call_id);
    results.unshift([call?.function?.name ?? call?.custom?.name ?? 'tool', textOf(message)]);
  }
  return results;
}

function planChoice(
  request: ChatRequest,
  decision: Decision,
  index: number,
  options: ChatAnswerOptions,
): PlannedChoice {
  const budget = request.max_completion_tokens ?? request.max_tokens ?? Infinity;
  if (decision.kind === 'function') {
    const [args, cut] = withinBudget(argumentsFor(decision.definition.parameters, decision.definition.name), budget);
    return {
      content: null,
      toolCalls: [],
      functionCall: { name: decision.definition.name, arguments: args },
      finishReason: cut ? 'length' : 'function_call',
    };
  }
  if (decision.kind === 'tools') {
    let left = budget;
    let cut = false;
    const toolCalls = decision.tools.map((tool, k): ToolCallAnswer => {
      const id = toolCallId(options.callNumber, index, k);
      if (tool.type === 'custom') {
        const [input, over] = withinBudget(textOf(request.messages[request.messages.length - 1]), left);
        left -= tokensOf(input);
        cut ||= over;
        return { id, type: 'custom', custom: { name: tool.custom.name, input } };
      }
      const [args, over] = withinBudget(argumentsFor(tool.function.parameters, tool.function.name), left);
      left -= tokensOf(args);
      cut ||= over;
      return { id, type: 'function', function: { name: tool.function.name, arguments: args } };
    });
    return { content: null, toolCalls, finishReason: cut ? 'length' : 'tool_calls' };
  }
  // Choices after the first differ, as sampled ones would; JSON stays as it is so it still parses.
  let text = decision.json || index === 0 ? decision.text : `${decision.text} #${index + 1}`;
  let finishReason: FinishReason = 'stop';
  const stops = typeof request.stop === 'string' ? [request.stop] : (request.stop ?? []);
  const stopAt = Math.min(...stops.map((stop) => text.indexOf(stop)).filter((at) => at >= 0));
  if (Number.isFinite(stopAt)) text = text.slice(0, stopAt);
  const [kept, cut] = withinBudget(text, budget);
  if (cut) finishReason = 'length';
  return { content: kept, toolCalls: [], finishReason };
}

/** The text cut to `budget` tokens, and whether it was cut. */
function withinBudget(text: string, budget: number): [string, boolean] {
  if (tokensOf(text) <= budget) return [text, false];
  return [text.slice(0, Math.max(0, budget) * OPENAI_CHARS_PER_TOKEN), true];
}

function argumentsFor(parameters: Record<string, unknown> | undefined, name: string): string {
  return JSON.stringify(schemaInstance(parameters ?? { type: 'object', properties: {} }, name));
}

function toolCallId(callNumber: number, choice: number, k: number): string {
  return `call_${createHash('sha256').update(`${callNumber}:${choice}:${k}`).digest('base64url').slice(0, 24)}`;
}

// --- OpenAI's shapes

function messageOf(choice: PlannedChoice, dialect: OpenAiDialect): Record<string, unknown> {
  const toolCalls = choice.toolCalls.map((call) =>
    documented(call.type === 'function' ? 'toolCall' : 'customToolCall', call),
  );
  // Compatible mode answers a tool call with empty content; OpenAI with null, and always `refusal` and `annotations`.
  const content = choice.content ?? (dialect === 'compatible' ? '' : null);
  return documented('chatMessage', {
    role: 'assistant',
    content,
    ...(dialect === 'openai' ? { refusal: null, annotations: [] } : {}),
    ...(toolCalls.length ? { tool_calls: toolCalls } : {}),
    ...(choice.functionCall ? { function_call: choice.functionCall } : {}),
  });
}

/** `logprobs` of a choice: one entry per token of its content, each with `topCount` alternatives; none for a tool call. */
function logprobsOf(choice: PlannedChoice, topCount: number) {
  if (choice.content === null) return documented('logprobs', { content: null, refusal: null });
  const content = tokenPieces(choice.content).map((token, k) => {
    const logprob = -((k % 7) + 1) / 100;
    const alternatives = Array.from({ length: topCount }, (_, j) => {
      const alternative = j === 0 ? token : `${token}~${j}`;
      return documented('topLogprob', { token: alternative, logprob: logprob - j, bytes: bytesOf(alternative) });
    });
    return documented('tokenLogprob', { token, logprob, bytes: bytesOf(token), top_logprobs: alternatives });
  });
  return documented('logprobs', { content, refusal: null });
}

function bytesOf(text: string): number[] {
  return [...Buffer.from(text, 'utf8')];
}

/** The prompt: each message's text and tool calls, and the tools and schema the model was given. */
function promptTokensOf(request: ChatRequest): number {
  const messages = request.messages.reduce(
    (sum, message) =>
      sum + tokensOf(textOf(message)) + (message.tool_calls?.length ? tokensOf(JSON.stringify(message.tool_calls)) : 0),
    0,
  );
  const tools = request.tools?.length ? tokensOf(JSON.stringify(request.tools)) : 0;
  const format =
    request.response_format?.type === 'json_schema' ? tokensOf(JSON.stringify(request.response_format)) : 0;
  return messages + tools + format;
}

function completionTokensOf(choice: PlannedChoice): number {
  const calls = choice.toolCalls.map((call) =>
    call.type === 'function' ? call.function.arguments : call.custom.input,
  );
  return [choice.content ?? '', ...calls, choice.functionCall?.arguments ?? ''].reduce(
    (sum, text) => sum + tokensOf(text),
    0,
  );
}

/** The tier that served the call: the one asked for, `default` for `auto` or none. */
function serviceTierOf(request: ChatRequest): string {
  return request.service_tier && request.service_tier !== 'auto' ? request.service_tier : 'default';
}

/** Argument fragments as a stream carries them: a few tokens each. */
export function argumentPieces(text: string): string[] {
  const pieces = tokenPieces(text);
  const fragments: string[] = [];
  for (let i = 0; i < pieces.length; i += 2) fragments.push(pieces.slice(i, i + 2).join(''));
  return fragments;
}
