import { Controller, Get, Header, Type } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import { PublicApiRoute } from '../http/api-auth-hook';
import { buildOpenApiDocument } from './openapi-document';

/** The API version the document describes; the paths carry it too. */
const API_VERSION = 'v1';

/** GET /v1/openapi.json: the contract, built from the controllers once, on first request, and served from memory. */
@Controller('v1')
export class OpenApiController {
  private cached?: string;

  constructor(private readonly discovery: DiscoveryService) {}

  @Get('openapi.json')
  @PublicApiRoute()
  @Header('content-type', 'application/json; charset=utf-8')
  @Header('cache-control', 'no-cache')
  document(): string {
    this.cached ??= JSON.stringify(
      buildOpenApiDocument(
        this.discovery.getControllers().map((wrapper) => wrapper.metatype as Type),
        API_VERSION,
      ),
    );
    return this.cached;
  }
}
