// jscpd:ignore-start: the three task controllers import the same decorators and services, which is not logic.
import { AppConfig } from '@gateway/common';
import { ENDPOINTS } from '@gateway/contracts';
import { ImageStore } from '@gateway/imaging';
import { ImageInputRef } from '@gateway/queue';
import { ApiAuthGuard, CurrentPrincipal, Principal } from '@gateway/tenancy';
import { Body, Controller, HttpCode, Post, Req, Res, UseGuards } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { TaskSubmitter } from '../task-submitter.service';
import { ImageEditRequestDto } from './image-edit.dto';
import { CheckedImage, ImageEditRequestService } from './image-edit-request.service';
// jscpd:ignore-end

@Controller(ENDPOINTS.imageEdit.path)
@UseGuards(ApiAuthGuard)
export class ImageEditController {
  constructor(
    private readonly config: AppConfig,
    private readonly requests: ImageEditRequestService,
    private readonly submitter: TaskSubmitter,
    private readonly store: ImageStore,
  ) {}

  @Post()
  @HttpCode(200)
  async create(
    @Body() dto: ImageEditRequestDto,
    @CurrentPrincipal() principal: Principal,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const checked = await this.requests.check(dto);
    const { images, spec, ...parameters } = checked;
    return this.submitter.submit({
      endpoint: ENDPOINTS.imageEdit,
      reserveTokens: () => 0,
      images: checked.n,
      principal,
      model: dto.model,
      resolvedModel: spec.id,
      // Images are stored only once the request is admitted: a refused request leaves nothing behind.
      request: async () => ({
        ...parameters,
        images: await Promise.all(images.map((image) => this.inputRef(image, principal.appId))),
        publicBaseUrl: this.config.PUBLIC_BASE_URL ?? `${request.protocol}://${request.host}`,
      }),
      http: { request, reply },
    });
  }

  private async inputRef(image: CheckedImage, appId: string): Promise<ImageInputRef> {
    if ('url' in image) return { url: image.url };
    if (image.bytes.length <= this.config.IMAGE_INLINE_INPUT_BYTES) return { inline: image.bytes.toString('base64') };
    const expiresAt = new Date(Date.now() + this.config.IMAGE_INPUT_TTL * 1000);
    return { stored: await this.store.saveInput(image.bytes, { appId, expiresAt }) };
  }
}
