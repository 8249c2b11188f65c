'use strict';
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { docsProblems } = require('./check-docs');

/** A repository of its own: one library declaring a class, and an architecture document naming what it is given. */
function repository(architecture, libs = ['queue']) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'check-docs-'));
  for (const lib of libs) fs.mkdirSync(path.join(root, 'libs', lib, 'src'), { recursive: true });
  fs.writeFileSync(
    path.join(root, 'libs', 'queue', 'src', 'outcome-delivery.service.ts'),
    'export class OutcomeDelivery {\n  constructor(\n    config: AppConfig,\n  ) {}\n\n  async deliver(task: FinishedTask): Promise<boolean> {\n    return true;\n  }\n}\n',
  );
  fs.mkdirSync(path.join(root, 'docs'));
  fs.writeFileSync(path.join(root, 'docs', 'architecture.md'), architecture);
  return root;
}

const LAYOUT = '| path | what |\n|---|---|\n| `libs/queue` | Queues. |\n';

describe('check-docs', () => {
  const roots = [];
  const problemsOf = (architecture, libs) => {
    const root = repository(architecture, libs);
    roots.push(root);
    return docsProblems(root);
  };
  afterAll(() => roots.forEach((root) => fs.rmSync(root, { recursive: true, force: true })));

  it('accepts docs that name what exists', () => {
    const text = `${LAYOUT}\n\`OutcomeDelivery.deliver\` (\`libs/queue/src/outcome-delivery.service.ts\`).\n`;
    expect(problemsOf(text)).toEqual([]);
  });

  it('names a method the class does not declare (a parameter of that name does not count)', () => {
    expect(problemsOf(`${LAYOUT}\n\`OutcomeDelivery.config\` and \`OutcomeDelivery.publish\`\n`)).toEqual([
      'docs/architecture.md: `OutcomeDelivery.config`: OutcomeDelivery has no member config',
      'docs/architecture.md: `OutcomeDelivery.publish`: OutcomeDelivery has no member publish',
    ]);
  });

  it('names a class that appears nowhere, and a path that does not exist', () => {
    expect(problemsOf(`${LAYOUT}\n\`ProviderRouter\` in \`libs/queue/src/provider-router.ts\`\n`)).toEqual([
      'docs/architecture.md: `ProviderRouter` appears nowhere in the code, configuration or tests',
      'docs/architecture.md: `libs/queue/src/provider-router.ts` does not exist',
    ]);
  });

  it('names a library missing from the layout table, and a listed one that is gone', () => {
    const text = `${LAYOUT}| \`libs/metering\` | Roll-ups. |\n`;
    expect(problemsOf(text, ['queue', 'outbound'])).toEqual([
      'docs/architecture.md: `libs/metering` does not exist',
      'docs/architecture.md: libs/outbound is missing from the repository layout table',
    ]);
  });

  it('names a layer whose libraries differ from scripts/layers.js, and one it lacks', () => {
    const root = repository(`${LAYOUT}\n| layer | libraries |\n|---|---|\n| 1 | \`queue\` |\n| 0 | \`common\` |\n`);
    roots.push(root);
    fs.mkdirSync(path.join(root, 'scripts'));
    const layers = [['common'], ['queue', 'redis'], ['tenancy']];
    fs.writeFileSync(
      path.join(root, 'scripts', 'layers.js'),
      `module.exports = { LAYERS: ${JSON.stringify(layers)} };`,
    );
    expect(docsProblems(root)).toEqual([
      'docs/architecture.md: layer 1 lists queue; scripts/layers.js has queue, redis',
      'docs/architecture.md: layer 2 lists nothing; scripts/layers.js has tenancy',
    ]);
    fs.writeFileSync(
      path.join(root, 'docs', 'architecture.md'),
      `${LAYOUT}\n| 2 | \`tenancy\` |\n| 1 | \`redis\`, \`queue\` |\n| 0 | \`common\` |\n`,
    );
    expect(docsProblems(root)).toEqual([]);
  });
});
