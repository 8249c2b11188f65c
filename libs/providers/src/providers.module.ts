import { LocalEditEngine } from '@gateway/local-imaging';
import { Module } from '@nestjs/common';
import { DashScopeProvider } from './dashscope/dashscope.provider';
import { LocalModels } from './local/local-models.service';
import { LocalProvider } from './local/local.provider';
import { OpenAiCompatibleProvider } from './openai-compatible/openai-compatible.provider';
import { ProviderRouter } from './provider-router.service';

@Module({
  providers: [LocalEditEngine, LocalModels, LocalProvider, OpenAiCompatibleProvider, DashScopeProvider, ProviderRouter],
  exports: [ProviderRouter],
})
export class ProvidersModule {}
