import { GatewayError } from '@gateway/common';
import { FileUrlSigner, ImageStore } from '@gateway/imaging';
import { Controller, Get, Param, Query, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { PublicApiRoute } from '../../http/api-auth-hook';

/**
 * Generated images behind signed, expiring URLs (docs/contracts.md). The URL itself is the credential, so there is no
 * API key: a client can hand it to a browser or another service until it expires.
 */
@Controller('v1/files')
export class FilesController {
  constructor(
    private readonly signer: FileUrlSigner,
    private readonly store: ImageStore,
  ) {}

  @Get(':id')
  @PublicApiRoute()
  async download(
    @Param('id') id: string,
    @Query('exp') exp: string | undefined,
    @Query('sig') sig: string | undefined,
    @Res() reply: FastifyReply,
  ) {
    const check = this.signer.check(id, exp, sig);
    if (check === 'invalid')
      throw new GatewayError('InvalidUrlSignature', 'this file URL is not valid: its signature does not match', {
        param: 'sig',
      });
    if (check === 'expired')
      throw new GatewayError('UrlExpired', 'this file URL has expired; generated images are kept for a limited time', {
        param: 'exp',
      });
    const file = await this.store.openImage(id);
    if (!file) throw new GatewayError('UrlExpired', 'this file is no longer available', { param: 'id' });
    const maxAge = Math.max(0, Number(exp) - Math.floor(Date.now() / 1000));
    return reply
      .header('content-type', file.metadata.contentType)
      .header('content-length', file.length)
      .header('cache-control', `private, max-age=${maxAge}, immutable`)
      .header('x-content-type-options', 'nosniff')
      .send(file.stream);
  }
}
