/**
 * Whether the local model answers a request with tool calls or with text, and the grammar its calls are generated
 * under. A 135M model asked to choose for itself answers `[]` (no call) every time, even "What is the weather in
 * Paris?" beside a weather tool, so `auto` is a rule, not the model's choice (docs/decisions/local-engine.md):
 * after a tool result it answers in text, otherwise it calls a tool. Which tool, and with what arguments, is the
 * model's, within a grammar that admits only the offered tools and arguments valid for their schemas.
 */
import type { ChatFunctionTool, ChatRequestBody } from '@gateway/contracts';
import { ProviderError } from '../../provider.types';
import type { LocalGrammar } from '../models/local-model-host';
import { GrammarSchema, toGrammarSchema, TranslatedSchema, UnsupportedSchemaError } from './json-schema-grammar';

/**
 * Calls one answer may make when parallel_tool_calls allows several. The small model repeats a call until the
 * list is cut off (tool-call-reader.ts drops exact repeats); the cap bounds the tokens that costs.
 */
export const MAX_PARALLEL_TOOL_CALLS = 4;

/** An offered function, by either the `tools` or the legacy `functions` field. */
export interface LocalTool {
  name: string;
  description?: string;
  /** The caller's JSON Schema of the arguments (an object with no properties when it gave none). */
  parameters: Record<string, unknown>;
  /** Where the parameters are in the request, for messages. */
  at: string;
}

export type ToolPlan =
  | { kind: 'text' }
  | {
      kind: 'calls';
      /** The tools the model may call (one for a named choice). */
      tools: LocalTool[];
      maxCalls: number;
      /** Asked through the deprecated `functions`: answered as `function_call`. */
      legacy: boolean;
    };

type Choice = { mode: 'none' | 'auto' | 'required' } | { mode: 'named'; name: string } | { mode: 'allowed' };

const NO_PARAMETERS = { type: 'object', properties: {}, additionalProperties: false };

/** What the request asks of tools, decided by the rule above; a choice the tools cannot satisfy is refused. */
export function planToolUse(request: ChatRequestBody): ToolPlan {
  const hasTools = (request.tools?.length ?? 0) > 0;
  const hasFunctions = (request.functions?.length ?? 0) > 0;
  if (hasTools && hasFunctions) throw refuse('send either tools or the deprecated functions, not both');
  const legacy = hasFunctions;
  const offered: LocalTool[] = legacy
    ? (request.functions ?? []).map((fn, i) => ({
        name: fn.name,
        description: fn.description,
        parameters: fn.parameters ?? NO_PARAMETERS,
        at: `functions[${i}].parameters`,
      }))
    : (request.tools ?? []).map(toolOf);
  const choice = legacy ? legacyChoice(request.function_call) : choiceOf(request.tool_choice);
  if (offered.length === 0) {
    if (choice.mode === 'required' || choice.mode === 'named')
      throw refuse(`${legacy ? 'function_call' : 'tool_choice'} asks for a call, but no tools are given`);
    return { kind: 'text' };
  }
  const maxCalls = legacy || request.parallel_tool_calls === false ? 1 : MAX_PARALLEL_TOOL_CALLS;
  switch (choice.mode) {
    case 'none':
      return { kind: 'text' };
    case 'named': {
      const tool = offered.find((candidate) => candidate.name === choice.name);
      if (!tool)
        throw refuse(`${legacy ? 'function_call' : 'tool_choice'} names ${choice.name}, which is not among the tools`);
      // A named call is one call, as OpenAI answers it.
      return { kind: 'calls', tools: [tool], maxCalls: 1, legacy };
    }
    case 'allowed': {
      const allowed = request.tool_choice as Extract<ChatRequestBody['tool_choice'], { type: 'allowed_tools' }>;
      const names = allowed.allowed_tools.tools.map(
        (tool) => (tool as { function?: { name?: string } }).function?.name,
      );
      const tools = offered.filter((tool) => names.includes(tool.name));
      if (tools.length === 0) throw refuse('tool_choice.allowed_tools names none of the tools');
      if (allowed.allowed_tools.mode === 'required' || !lastIsToolResult(request))
        return { kind: 'calls', tools, maxCalls, legacy };
      return { kind: 'text' };
    }
    case 'required':
      return { kind: 'calls', tools: offered, maxCalls, legacy };
    case 'auto':
      return lastIsToolResult(request) ? { kind: 'text' } : { kind: 'calls', tools: offered, maxCalls, legacy };
  }
}

/**
 * The grammar of the model's answer: a JSON list of `{"name": …, "arguments": …}`, the format of SmolLM2's
 * tool-calling data, with each name one of the tools and its arguments valid for that tool's parameters.
 */
export function toolCallGrammar(plan: Extract<ToolPlan, { kind: 'calls' }>): LocalGrammar {
  const defs: Record<string, GrammarSchema> = {};
  const calls = plan.tools.map((tool, i) => {
    const parameters = tool.parameters.type === undefined ? { ...tool.parameters, type: 'object' } : tool.parameters;
    if (parameters.type !== 'object') throw refuse(`${tool.at}.type must be object`);
    let translated: TranslatedSchema;
    try {
      translated = toGrammarSchema(parameters, tool.at, `t${i}_`);
    } catch (error) {
      if (error instanceof UnsupportedSchemaError) throw refuse(error.message);
      throw error;
    }
    Object.assign(defs, translated.defs);
    return { type: 'object', properties: { name: { const: tool.name }, arguments: translated.schema } };
  });
  return {
    type: 'json_schema',
    schema: {
      type: 'array',
      items: calls.length === 1 ? calls[0] : { oneOf: calls },
      minItems: 1,
      maxItems: plan.maxCalls,
      ...(Object.keys(defs).length > 0 ? { $defs: defs } : {}),
    },
  };
}

function toolOf(tool: ChatFunctionTool, i: number): LocalTool {
  if (tool.type !== 'function')
    throw refuse(`tools[${i}] is of type ${String(tool.type)}; the local model calls functions only`);
  const { name, description, parameters } = tool.function;
  return { name, description, parameters: parameters ?? NO_PARAMETERS, at: `tools[${i}].function.parameters` };
}

function choiceOf(choice: ChatRequestBody['tool_choice']): Choice {
  if (choice === undefined || choice === 'auto') return { mode: 'auto' };
  if (choice === 'none' || choice === 'required') return { mode: choice };
  if (choice.type === 'function') return { mode: 'named', name: choice.function.name };
  return { mode: 'allowed' };
}

function legacyChoice(choice: ChatRequestBody['function_call']): Choice {
  if (choice === undefined || choice === 'auto') return { mode: 'auto' };
  if (choice === 'none') return { mode: 'none' };
  return { mode: 'named', name: choice.name };
}

function lastIsToolResult(request: ChatRequestBody): boolean {
  const role = request.messages.at(-1)?.role;
  return role === 'tool' || role === 'function';
}

function refuse(message: string): ProviderError {
  return new ProviderError(message, 'request');
}
