import { ChatFeature, ChatRequestBody } from '@gateway/contracts';

/** A feature a request needs, and the field that asked for it (the `param` of a 400 when no route has it). */
export interface FeatureUse {
  feature: ChatFeature;
  param: string;
}

const PART_FEATURES: Record<string, ChatFeature | undefined> = {
  image_url: 'image_input',
  input_audio: 'audio_input',
  file: 'file_input',
};

/**
 * What `body` needs of a route beyond text in and out. A field at its neutral value needs nothing (`n: 1`,
 * `logprobs: false`, penalties 0, `logit_bias: {}`, `tool_choice: "none"`, `parallel_tool_calls` without tools);
 * hints that leave the answer as it is (`store`, `metadata`, `service_tier`, `prediction`, `prompt_cache_key`,
 * `safety_identifier`, `user`, `seed`) need nothing either.
 */
export function featuresOf(body: ChatRequestBody): FeatureUse[] {
  const uses: FeatureUse[] = [];
  const use = (feature: ChatFeature, param: string) => {
    if (!uses.some((existing) => existing.feature === feature)) uses.push({ feature, param });
  };
  if ((body.tools?.length ?? 0) > 0 && body.tool_choice !== 'none') use('tools', 'tools');
  if ((body.functions?.length ?? 0) > 0 && body.function_call !== 'none') use('tools', 'functions');
  const format = body.response_format?.type;
  if (format === 'json_object' || format === 'json_schema') use(format, 'response_format');
  if (body.logprobs) use('logprobs', 'logprobs');
  if ((body.n ?? 1) > 1) use('n', 'n');
  if (body.presence_penalty) use('penalties', 'presence_penalty');
  if (body.frequency_penalty) use('penalties', 'frequency_penalty');
  if (body.logit_bias && Object.keys(body.logit_bias).length > 0) use('logit_bias', 'logit_bias');
  if (body.modalities?.includes('audio') || body.audio) use('audio_output', body.audio ? 'audio' : 'modalities');
  if (body.reasoning_effort) use('reasoning', 'reasoning_effort');
  if (body.verbosity) use('reasoning', 'verbosity');
  if (body.web_search_options) use('web_search', 'web_search_options');
  body.messages.forEach((message, m) => {
    if (!Array.isArray(message.content)) return;
    message.content.forEach((part, p) => {
      const feature = PART_FEATURES[part.type];
      if (feature) use(feature, `messages[${m}].content[${p}]`);
    });
  });
  return uses;
}
