import type { ResolvedRoute } from '@gateway/catalog';
import { AppConfig, LOGGER } from '@gateway/common';
import { outputGeometry } from '@gateway/imaging';
import { editedSize, extendPrompt, LocalEditEngine } from '@gateway/local-imaging';
import { Inject, Injectable } from '@nestjs/common';
import { Logger } from 'pino';
import {
  ChatAnswer,
  ChatCall,
  ChatChunk,
  EmbeddingsAnswer,
  EmbeddingsCall,
  ImageEditAnswer,
  ImageEditCall,
  ModelProvider,
  ProviderError,
} from '../provider.types';
import { ChatChunkWriter } from './chat/chat-chunks';
import { LocalChat } from './chat/local-chat';
import { hashEmbedding, hashWords } from './hash-embedder';
import { LocalModels } from './local-models.service';

const DEFAULT_DIMENSIONS = 1024;

/** Route model names of the local models (config/models.yaml). */
const LOCAL_MODEL_NAMES = {
  chat: 'smollm2-135m-instruct',
  embedding: 'all-minilm-l6-v2',
  hashEmbedding: 'hash-embedding-v1',
  imageEdit: 'local-image-edit',
} as const;

/** prompt_extend asks the chat model for a rewrite this long at most. */
const PROMPT_EXTEND_MAX_TOKENS = 96;

/** Models that run inside the worker with no network. */
@Injectable()
export class LocalProvider implements ModelProvider {
  readonly name = 'local' as const;
  private readonly localChat: LocalChat;

  constructor(
    private readonly config: AppConfig,
    private readonly models: LocalModels,
    @Inject(LOGGER) private readonly logger: Logger,
    private readonly editor: LocalEditEngine,
  ) {
    this.localChat = new LocalChat(models);
  }

  async embed(route: ResolvedRoute, call: EmbeddingsCall): Promise<EmbeddingsAnswer> {
    if (route.model === LOCAL_MODEL_NAMES.embedding) return this.models.embed(call.input, call.dimensions);
    if (route.model !== LOCAL_MODEL_NAMES.hashEmbedding)
      throw new ProviderError(`local model ${route.model} is not available`, 'route');
    const dimensions = call.dimensions ?? DEFAULT_DIMENSIONS;
    return {
      vectors: call.input.map((text) => hashEmbedding(text, dimensions)),
      promptTokens: call.input.reduce((sum, text) => sum + Math.max(1, hashWords(text).length), 0),
    };
  }

  async chat(route: ResolvedRoute, call: ChatCall): Promise<ChatAnswer> {
    this.assertChatModel(route);
    return this.localChat.run(this.localChat.prepare(call));
  }

  /** OpenAI-shaped chunks of the local model's answer as it is generated (chat/chat-chunks.ts). */
  async streamChat(
    route: ResolvedRoute,
    call: ChatCall,
    onChunk: (chunk: ChatChunk) => Promise<void>,
    stop: AbortSignal,
  ): Promise<ChatAnswer> {
    this.assertChatModel(route);
    const prepared = this.localChat.prepare(call); // refusals before the first chunk, so the router may fall back
    const writer = new ChatChunkWriter(prepared.output, onChunk);
    let answer: ChatAnswer;
    try {
      answer = await this.localChat.run(prepared, (event) => writer.write(event), stop);
    } catch (error) {
      await writer.settled();
      throw error;
    }
    await writer.finish(answer);
    return answer;
  }

  /** The embedded image editor: instruction-driven sharp operations, deterministic for a seed and variation. */
  async editImage(route: ResolvedRoute, call: ImageEditCall): Promise<ImageEditAnswer> {
    if (route.model !== LOCAL_MODEL_NAMES.imageEdit)
      throw new ProviderError(`local model ${route.model} is not available`, 'route');
    const rewritten = call.promptExtend ? await this.extendPrompt(call.prompt, call.images.length) : undefined;
    // The editor acts on the caller's words (a model's rewrite may drop the keywords it understands), widened by
    // the rule-based expansion; the rewrite is what revised_prompt shows.
    const prompt = call.promptExtend ? extendPrompt(call.prompt, call.images.length) : call.prompt;
    // Without a size, the output takes the edited picture's shape (a rotated or side-by-side result is not
    // letterboxed); for edits that keep the shape that is the last image's aspect, as docs/contracts.md asks.
    const output = call.size ?? outputGeometry(editedSize(call.images, prompt, call.negativePrompt));
    const result = await this.editor.edit({
      images: call.images.map((image) => image.data),
      prompt,
      negativePrompt: call.negativePrompt,
      seed: call.seed ?? 0,
      variation: call.variation,
      output,
      watermark: call.watermark ?? false,
    });
    // The prompt as used (cut, or rewritten, docs/contracts.md), then the editor's account of what it applied and what not.
    return {
      image: result.png,
      revisedPrompt: `${rewritten ?? prompt}\n\n${result.revisedPrompt}`,
      watermarked: true,
      shaped: true,
    };
  }

  /**
   * prompt_extend with the local chat model when this worker has it: bounded in tokens and time, and the
   * rule-based rewrite whenever the model is absent, slow, or answers nothing usable.
   */
  private async extendPrompt(prompt: string, imageCount: number): Promise<string> {
    if (!this.models.chatAvailable) return extendPrompt(prompt, imageCount);
    const signal = AbortSignal.timeout(this.config.PROMPT_EXTEND_TIMEOUT_MS);
    try {
      const answer = await this.models.chat(
        {
          messages: [
            {
              role: 'system',
              content:
                'You rewrite short image-editing instructions into one clear, detailed instruction. Keep the language of the instruction. Answer with the rewritten instruction only.',
            },
            { role: 'user', content: prompt },
          ],
          maxTokens: PROMPT_EXTEND_MAX_TOKENS,
          temperature: 0,
        },
        undefined,
        signal,
      );
      const [rewrite] = answer.completions;
      const text = rewrite?.content.trim() ?? '';
      return rewrite?.finishReason !== 'cancelled' && text.length > 0 ? text : extendPrompt(prompt, imageCount);
    } catch (error) {
      this.logger.warn(
        { err: (error as Error).message },
        'prompt_extend with the local chat model failed; using the rule-based rewrite',
      );
      return extendPrompt(prompt, imageCount);
    }
  }

  private assertChatModel(route: ResolvedRoute): void {
    if (route.model !== LOCAL_MODEL_NAMES.chat)
      throw new ProviderError(`local model ${route.model} is not available`, 'route');
  }
}
