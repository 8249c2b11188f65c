import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadCatalogFile } from './catalog-loader';

function catalog(yaml: string): string {
  const file = join(mkdtempSync(join(tmpdir(), 'catalog-')), 'models.yaml');
  writeFileSync(file, yaml);
  return file;
}

describe('catalog loader', () => {
  it('loads the shipped catalog with every model id of the spec', () => {
    const { models } = loadCatalogFile(join(__dirname, '../../../config/models.yaml'));
    const ids = models.flatMap((m) => [m.id, ...m.aliases]);
    expect(ids).toEqual(
      expect.arrayContaining([
        'x-image-edit-plus',
        'x-image-edit-plus-2025-12-15',
        'x-image-edit-plus-2025-10-30',
        'x-image-edit',
        'text-embedding-v4',
      ]),
    );
    expect(models.find((m) => m.aliases.includes('x-image-edit-plus'))!.id).toBe('x-image-edit-plus-2025-12-15');
    expect(models.some((m) => m.capability === 'chat')).toBe(true);
  });

  it('names the entry at fault', () => {
    expect(() =>
      loadCatalogFile(
        catalog('models:\n  - id: a\n    capability: painting\n    routes: [{provider: local, model: m}]\n'),
      ),
    ).toThrow(/models\[0\] \(a\): capability/);
    expect(() =>
      loadCatalogFile(
        catalog('models:\n  - id: a\n    capability: chat\n    routes: [{provider: openai-compatible, model: m}]\n'),
      ),
    ).toThrow(/"upstream" is required/);
  });

  it('refuses an id defined twice, alias included', () => {
    const yaml =
      'models:\n  - {id: a, capability: chat, aliases: [b], routes: [{provider: local, model: m}]}\n  - {id: b, capability: chat, routes: [{provider: local, model: m}]}\n';
    expect(() => loadCatalogFile(catalog(yaml))).toThrow(/"b" is defined twice/);
  });
});
