import { loadConfig } from '@gateway/common';
import { join } from 'node:path';
import { CatalogService } from './catalog.service';

const SHIPPED = join(__dirname, '../../../config/models.yaml');

function catalog(upstreams: Record<string, string> = {}): CatalogService {
  return new CatalogService(loadConfig({ MODELS_CONFIG: SHIPPED, MASTER_KEY: 'a'.repeat(64), ...upstreams }));
}

describe('CatalogService: the embedded default standing in for text-embedding-v4', () => {
  it('answers the name with the local entry, under its own id, while no DashScope upstream is configured', () => {
    const resolved = catalog().resolve('text-embedding-v4', 'embeddings');
    expect(resolved.spec.id).toBe('text-embedding-v4-local');
    expect(resolved.routes.map((route) => [route.key, route.space])).toEqual([
      ['local:all-minilm-l6-v2', 'local/all-minilm-l6-v2'],
    ]);
  });

  it("switches the whole name to DashScope's space once the upstream is configured, with no local route", () => {
    const resolved = catalog({ UPSTREAM_DASHSCOPE_BASE_URL: 'http://127.0.0.1:1' }).resolve(
      'text-embedding-v4',
      'embeddings',
    );
    expect(resolved.spec.id).toBe('text-embedding-v4');
    expect(resolved.routes.map((route) => [route.key, route.space])).toEqual([
      ['dashscope:text-embedding-v4', 'dashscope/text-embedding-v4'],
    ]);
  });
});
