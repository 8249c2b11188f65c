/**
 * The local engine's Chat Completions: an OpenAI request (ChatCall) in, OpenAI choices out, with the local chat
 * model generating under a grammar when the answer must be tool calls or JSON. The text the model generates is
 * read the same way streamed or not (the streamed pieces are the answer's pieces), so both agree.
 */
import type { ChatChoice, ChatRequestBody } from '@gateway/contracts';
import { ChatAnswer, ChatCall, ProviderError } from '../../provider.types';
import type { LocalModels } from '../local-models.service';
import type { LocalChatRequest, LocalCompletion, LocalGrammar } from '../models/local-model-host';
import { renderPrompt } from './chat-prompt';
import { toGrammarSchema, UnsupportedSchemaError } from './json-schema-grammar';
import { SchemaCheck, schemaCheck } from './json-validation';
import { ToolCallEvent, ToolCallReader } from './tool-call-reader';
import { planToolUse, toolCallGrammar, ToolPlan } from './tool-choice';

/** What the model's text is read as. */
export type LocalOutput =
  | { kind: 'text' }
  | { kind: 'json'; check: SchemaCheck | null }
  | { kind: 'calls'; legacy: boolean; checks: Map<string, SchemaCheck> };

/** A request ready for the model: what to generate, and how to read it. */
export interface PreparedChat {
  request: LocalChatRequest;
  output: LocalOutput;
  n: number;
}

/** A piece of choice `index`, as it is generated. */
export type ChoiceEvent =
  { type: 'content'; index: number; text: string } | { type: 'tool_call'; index: number; call: ToolCallEvent };

export class LocalChat {
  constructor(private readonly models: LocalModels) {}

  /** Checks and translates the request; what the local model cannot do is refused here (ProviderError 'request'). */
  prepare(call: ChatCall): PreparedChat {
    const body = call.request;
    refuseUnavailable(body);
    const plan = planToolUse(body);
    const { grammar, output } = outputOf(body, plan);
    const n = body.n ?? 1;
    const stop = typeof body.stop === 'string' ? [body.stop] : (body.stop ?? []);
    return {
      n,
      output,
      request: {
        messages: renderPrompt(body, plan),
        n,
        maxTokens: body.max_completion_tokens ?? body.max_tokens ?? undefined,
        temperature: body.temperature ?? undefined,
        topP: body.top_p ?? undefined,
        seed: body.seed ?? undefined,
        // Stop sequences end text; JSON and tool calls end where their grammar does (a stop inside would cut them).
        stop: grammar ? undefined : stop.filter((sequence) => sequence.length > 0),
        presencePenalty: body.presence_penalty ?? undefined,
        frequencyPenalty: body.frequency_penalty ?? undefined,
        logitBias: logitBiasOf(body.logit_bias),
        grammar,
      },
    };
  }

  /** Generates the choices; `onEvent` gets their pieces as they come. */
  async run(prepared: PreparedChat, onEvent?: (event: ChoiceEvent) => void, signal?: AbortSignal): Promise<ChatAnswer> {
    const { output } = prepared;
    const texts: string[] = [];
    const readers: ToolCallReader[] = [];
    const onDelta = (text: string, index: number) => {
      texts[index] = (texts[index] ?? '') + text;
      if (output.kind !== 'calls') {
        onEvent?.({ type: 'content', index, text });
        return;
      }
      readers[index] ??= new ToolCallReader();
      for (const call of readers[index].push(text)) onEvent?.({ type: 'tool_call', index, call });
    };
    const result = await this.models.chat(prepared.request, onDelta, signal);
    return {
      choices: result.completions.map((completion, index) =>
        choiceOf(index, completion, texts[index] ?? '', readers[index] ?? new ToolCallReader(), output),
      ),
      promptTokens: result.promptTokens,
      completionTokens: result.completionTokens,
    };
  }
}

/** Fields asking for what the local model does not have: refused rather than ignored. */
function refuseUnavailable(body: ChatRequestBody): void {
  const refuse = (param: string, what: string) => {
    throw new ProviderError(`${param}: the local model ${what}`, 'request');
  };
  if (body.logprobs) refuse('logprobs', 'gives no logprobs');
  if (body.top_logprobs) refuse('top_logprobs', 'gives no logprobs');
  if (body.audio || body.modalities?.includes('audio'))
    refuse(body.audio ? 'audio' : 'modalities', 'answers in text only');
  if (body.web_search_options) refuse('web_search_options', 'cannot search the web');
  if (body.reasoning_effort) refuse('reasoning_effort', 'does not reason before it answers');
  if (body.verbosity) refuse('verbosity', 'has no verbosity setting');
}

/** The grammar of the answer and how to read it: tool calls, JSON (of a schema), or free text. */
function outputOf(body: ChatRequestBody, plan: ToolPlan): { grammar?: LocalGrammar; output: LocalOutput } {
  if (plan.kind === 'calls') {
    const checks = new Map(plan.tools.map((tool) => [tool.name, checkOf(tool.parameters, tool.at)]));
    return { grammar: toolCallGrammar(plan), output: { kind: 'calls', legacy: plan.legacy, checks } };
  }
  const format = body.response_format;
  if (format?.type === 'json_object') return { grammar: { type: 'json' }, output: { kind: 'json', check: null } };
  if (format?.type === 'json_schema') {
    const at = 'response_format.json_schema.schema';
    const schema = format.json_schema.schema ?? { type: 'object' };
    try {
      const translated = toGrammarSchema(schema, at);
      const grammarSchema = Object.keys(translated.defs).length
        ? { ...translated.schema, $defs: translated.defs }
        : translated.schema;
      return {
        grammar: { type: 'json_schema', schema: grammarSchema },
        output: { kind: 'json', check: checkOf(schema, at) },
      };
    } catch (error) {
      if (error instanceof UnsupportedSchemaError) throw new ProviderError(error.message, 'request');
      throw error;
    }
  }
  return { output: { kind: 'text' } };
}

function checkOf(schema: Record<string, unknown>, at: string): SchemaCheck {
  try {
    return schemaCheck(schema);
  } catch (error) {
    throw new ProviderError(`${at} is not a valid JSON Schema: ${(error as Error).message}`, 'request');
  }
}

/** OpenAI's logit_bias keys are token ids as strings; the model checks they are its own (local-models.worker.mjs). */
function logitBiasOf(bias: ChatRequestBody['logit_bias']): [number, number][] | undefined {
  const entries = Object.entries(bias ?? {});
  if (entries.length === 0) return undefined;
  return entries.map(([token, value]) => {
    if (!/^\d+$/.test(token))
      throw new ProviderError(`logit_bias has the key ${token}; keys are token ids of the model`, 'request');
    return [Number(token), value];
  });
}

/**
 * One OpenAI choice from the model's text. Whole JSON and whole tool calls are validated against their schemas
 * (a failure is the engine's, 'spent': the same request would generate the same output again); cut-off ones are
 * answered as they are, with finish_reason `length` or `cancelled`, as OpenAI answers them.
 */
function choiceOf(
  index: number,
  completion: LocalCompletion,
  text: string,
  reader: ToolCallReader,
  output: LocalOutput,
): ChatChoice {
  const cutOff = completion.finishReason === 'cancelled' ? 'cancelled' : 'length';
  if (output.kind === 'text') return textChoice(index, text, completion.finishReason);
  if (output.kind === 'json') {
    const value = parsed(text);
    if (value === undefined) return textChoice(index, text, cutOff);
    const problem = output.check ? output.check(value.json) : jsonObjectProblem(value.json);
    if (problem) throw new ProviderError(`the local model's JSON does not match the schema: ${problem}`, 'spent');
    // Whole JSON is a finished answer, even when the grammar's closing newlines ran into max_tokens.
    return textChoice(index, text, 'stop');
  }
  const calls = reader.result;
  if (reader.complete) {
    for (const call of calls) {
      const args = parsed(call.arguments);
      const check = output.checks.get(call.name);
      const problem = args === undefined ? 'is not JSON' : check ? check(args.json) : 'names no offered tool';
      if (problem)
        throw new ProviderError(
          `the local model's arguments for ${call.name} do not match its parameters: ${problem}`,
          'spent',
        );
    }
  }
  const finishReason = reader.complete ? (output.legacy ? 'function_call' : 'tool_calls') : cutOff;
  // Legacy `functions` answer one `function_call`; tools answer `tool_calls`.
  const [first] = calls;
  const answered = output.legacy
    ? first
      ? { function_call: { name: first.name, arguments: first.arguments } }
      : {}
    : {
        tool_calls: calls.map((call) => ({
          id: call.id,
          type: 'function' as const,
          function: { name: call.name, arguments: call.arguments },
        })),
      };
  return {
    index,
    message: { role: 'assistant', content: null, refusal: null, ...answered },
    finish_reason: finishReason,
    logprobs: null,
  };
}

function textChoice(index: number, content: string, finishReason: string): ChatChoice {
  return { index, message: { role: 'assistant', content, refusal: null }, finish_reason: finishReason, logprobs: null };
}

function parsed(text: string): { json: unknown } | undefined {
  try {
    return { json: JSON.parse(text) };
  } catch {
    return undefined;
  }
}

function jsonObjectProblem(value: unknown): string | null {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? null : 'is not a JSON object';
}
