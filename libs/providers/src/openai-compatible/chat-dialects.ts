import type { ResolvedRoute } from '@gateway/catalog';
import type { ChatMessage, ChatRequestBody } from '@gateway/contracts';

/**
 * The request an OpenAI-compatible upstream gets: the caller's, as sent, less what that upstream documents it does
 * not take. OpenAI itself gets it unchanged.
 *
 * DashScope's compatible mode (Model Studio, "OpenAI compatible – Chat"): it takes `max_tokens` but not
 * `max_completion_tokens`, and roles system/user/assistant/tool but not `developer`; the OpenAI-platform fields
 * it does not list (`store`, `metadata`, `service_tier`, `prediction`, `prompt_cache_key`, `safety_identifier`,
 * `verbosity`, `reasoning_effort`, `web_search_options`, `user`, and the deprecated `functions`/`function_call`)
 * are hints or platform settings, dropped. The features it cannot honour at all (catalog `features`) never reach it.
 */
const DASHSCOPE_DROPPED = [
  'store',
  'metadata',
  'service_tier',
  'prediction',
  'prompt_cache_key',
  'safety_identifier',
  'verbosity',
  'reasoning_effort',
  'web_search_options',
  'user',
  'functions',
  'function_call',
] as const satisfies readonly (keyof ChatRequestBody)[];

export function chatRequestFor(route: ResolvedRoute, request: ChatRequestBody): Record<string, unknown> {
  const sent = withoutToolSettingsAlone(request);
  if (route.dialect !== 'dashscope') return { ...sent, model: route.model };
  const translated: Record<string, unknown> = { ...sent, model: route.model };
  for (const field of DASHSCOPE_DROPPED) delete translated[field];
  const maxTokens = request.max_completion_tokens ?? request.max_tokens;
  delete translated.max_completion_tokens;
  if (maxTokens !== undefined && maxTokens !== null) translated.max_tokens = maxTokens;
  translated.messages = request.messages.map(asDashScopeMessage);
  return translated;
}

/**
 * The gateway accepts `parallel_tool_calls` and `tool_choice: "none"` without tools as the neutral values they
 * are; OpenAI refuses both without tools, so they are not sent.
 */
function withoutToolSettingsAlone(request: ChatRequestBody): ChatRequestBody {
  if ((request.tools?.length ?? 0) > 0) return request;
  const { tools, tool_choice, parallel_tool_calls, ...rest } = request;
  return rest;
}

function asDashScopeMessage(message: ChatMessage): ChatMessage {
  if (message.role === 'developer') return { ...message, role: 'system' };
  if (message.role !== 'assistant') return message;
  // OpenAI's answer fields a client sends back in an assistant turn, which DashScope does not take.
  const { refusal, annotations, audio, function_call, ...kept } = message;
  return kept;
}
