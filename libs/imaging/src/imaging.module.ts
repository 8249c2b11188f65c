import { AppConfig } from '@gateway/common';
import { outboundPolicy, SafeFetcher } from '@gateway/outbound';
import { Inject, Module, OnModuleDestroy } from '@nestjs/common';
import { MAX_INPUT_BYTES } from './input';
import { FileUrlSigner } from './store/file-url-signer';
import { ImageStore } from './store/image-store';

/** An image URL that redirects more often than this counts as unreachable. */
const MAX_REDIRECTS = 3;

@Module({
  providers: [
    ImageStore,
    FileUrlSigner,
    {
      provide: SafeFetcher,
      inject: [AppConfig],
      useFactory: (config: AppConfig) =>
        new SafeFetcher(outboundPolicy(config), {
          maxBytes: MAX_INPUT_BYTES,
          timeoutMs: config.IMAGE_FETCH_TIMEOUT_MS,
          maxRedirects: MAX_REDIRECTS,
        }),
    },
  ],
  exports: [ImageStore, FileUrlSigner, SafeFetcher],
})
export class ImagingModule implements OnModuleDestroy {
  constructor(@Inject(SafeFetcher) private readonly fetcher: SafeFetcher) {}

  async onModuleDestroy(): Promise<void> {
    await this.fetcher.close();
  }
}
