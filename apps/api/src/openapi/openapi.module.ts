import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { ApiReferenceController } from './api-reference.controller';
import { OpenApiController } from './openapi.controller';

/** The api's contract as an OpenAPI 3.1 document (GET /v1/openapi.json) and its reference page (GET /docs). */
@Module({ imports: [DiscoveryModule], controllers: [OpenApiController, ApiReferenceController] })
export class OpenApiModule {}
