import { Controller, Get } from '@nestjs/common';
import { ChatController } from '../v1/chat/chat.controller';
import { EmbeddingsController } from '../v1/embeddings/embeddings.controller';
import { buildOpenApiDocument } from './openapi-document';

@Controller('v1/things')
class UndocumentedController {
  @Get()
  list() {
    return [];
  }
}

describe('buildOpenApiDocument', () => {
  it('refuses to build while a route has no entry in OPERATION_DOCS', () => {
    expect(() => buildOpenApiDocument([EmbeddingsController, UndocumentedController], 'v1')).toThrow(
      'UndocumentedController.list (GET /v1/things) has no entry in OPERATION_DOCS',
    );
  });

  it('takes the chat body from its JSON Schema and the embeddings body from its DTO class', () => {
    const document = buildOpenApiDocument([EmbeddingsController, ChatController], 'v1');
    const body = (path: string) =>
      (document.paths[path].post.requestBody as { content: { 'application/json': { schema: unknown } } }).content[
        'application/json'
      ].schema;
    expect(body('/v1/chat/completions')).toMatchObject({ properties: { model: expect.anything() } });
    expect(body('/v1/embeddings')).toEqual({ $ref: '#/components/schemas/EmbeddingsRequestDto' });
    const schemas = (document.components as { schemas: Record<string, { required?: string[] }> }).schemas;
    expect(schemas.EmbeddingsRequestDto.required).toEqual(['model', 'input']);
  });
});
