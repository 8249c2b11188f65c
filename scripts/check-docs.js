'use strict';
// `npm run lint` runs this: the design documents must name only what exists. It fails when docs/ (or the README)
// names, in backticks, a `Class.member` the class does not declare, a class or other PascalCase name that appears
// nowhere in the code, configuration or tests, or a path under apps/, libs/, scripts/, … that does not exist; and
// when a libs/* folder is missing from the repository layout table of docs/architecture.md, or its layer table
// differs from scripts/layers.js (the order `npm run lint` enforces). Plain Node, built-ins.
const fs = require('node:fs');
const path = require('node:path');

const LAYOUT_DOC = 'docs/architecture.md';
/** Where the code, configuration and tests live: a name the docs use must appear in one of them. */
const SOURCE_DIRS = ['apps', 'libs', 'scripts', 'test', 'bench', 'config', 'deploy', 'prometheus', 'grafana'];
const SOURCE_FILE = /\.(ts|tsx|js|cjs|mjs|json|ya?ml|lua|sql)$/;
/** Top-level folders whose paths the docs cite. */
const CITED_ROOTS = ['apps', 'libs', 'scripts', 'test', 'bench', 'deploy', 'prometheus', 'grafana', 'config'];
/**
 * PascalCase names the docs may use although the code never spells them: framework classes the code deliberately
 * does not use, and codes the docs say do not exist.
 */
const NAMED_ON_PURPOSE = new Set([
  'WorkerHost', // docs/style.md: why nothing extends @nestjs/bullmq's WorkerHost
  'BillOverdue', // docs/contracts.md: "There is no BillOverdue code"
]);
const MEMBER_MODIFIERS =
  '(?:(?:static|async|get|set|readonly|private|public|protected|override|declare|abstract)\\s+)*';

function walk(dir, keep, out = []) {
  if (!fs.existsSync(dir)) return out;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (['node_modules', 'dist', '.git'].includes(entry.name)) continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) walk(full, keep, out);
    else if (keep(entry.name)) out.push(full);
  }
  return out;
}

/** docs/ with its decision records, and the README. */
function documents(root) {
  const readme = path.join(root, 'README.md');
  return [
    ...walk(path.join(root, 'docs'), (name) => name.endsWith('.md')),
    ...(fs.existsSync(readme) ? [readme] : []),
  ].map((file) => ({ file: path.relative(root, file), text: fs.readFileSync(file, 'utf8') }));
}

/** Every word of the code, configuration and tests; and where each PascalCase name is declared in apps/ and libs/. */
function indexSources(root) {
  const words = new Set();
  const declaredIn = new Map();
  for (const dir of SOURCE_DIRS) {
    for (const file of walk(path.join(root, dir), (name) => SOURCE_FILE.test(name))) {
      const text = fs.readFileSync(file, 'utf8');
      for (const word of text.match(/[A-Za-z_][A-Za-z0-9_]*/g) ?? []) words.add(word);
      if (!/^(apps|libs)$/.test(dir) || /\.spec\.ts$|-spec\.ts$/.test(file)) continue;
      for (const [, name] of text.matchAll(/\b(?:class|interface|type|enum|const|function)\s+([A-Z][A-Za-z0-9]*)/g)) {
        if (!declaredIn.has(name)) declaredIn.set(name, []);
        declaredIn.get(name).push(text);
      }
    }
  }
  return { words, declaredIn };
}

/** A member declared in a class, interface or object type: a line that starts with it, not a parameter in a list. */
function declaresMember(text, member) {
  return new RegExp(`^\\s+${MEMBER_MODIFIERS}${member}\\??\\s*[(<:=;](?:[^\\n]*[^,\\n])?$`, 'm').test(text);
}

function checkNames(doc, sources, problems) {
  for (const [, name, member] of doc.text.matchAll(/`([A-Z][A-Za-z0-9]*)(?:\.([a-z_][A-Za-z0-9_]*))?(?:\(\))?`/g)) {
    const declarations = sources.declaredIn.get(name);
    if (member && declarations) {
      if (!declarations.some((text) => declaresMember(text, member)))
        problems.push(`${doc.file}: \`${name}.${member}\`: ${name} has no member ${member}`);
      continue;
    }
    // A single word (`Worker`, `MULTI`) is too often English or Redis; only compound names must be found.
    const compound = /^[A-Z][a-z0-9]+[A-Z]/.test(name);
    if ((compound || member) && !declarations && !sources.words.has(name) && !NAMED_ON_PURPOSE.has(name))
      problems.push(`${doc.file}: \`${name}\` appears nowhere in the code, configuration or tests`);
  }
}

function checkPaths(root, doc, problems) {
  const roots = CITED_ROOTS.join('|');
  for (const [, cited] of doc.text.matchAll(new RegExp(`(?<![\\w./-])((?:${roots})/[A-Za-z0-9_./-]+)`, 'g'))) {
    const relative = cited.replace(/[.,:;]+$/, '');
    const full = path.join(root, relative);
    // Without an extension, a prefix of a file counts: `test/e2e/embeddings` is jest's pattern for a suite.
    const exists =
      fs.existsSync(full) ||
      (!/\.[a-z]+$/.test(relative) &&
        fs.existsSync(path.dirname(full)) &&
        fs.readdirSync(path.dirname(full)).some((entry) => entry.startsWith(path.basename(full))));
    if (!exists) problems.push(`${doc.file}: \`${relative}\` does not exist`);
  }
}

/** Every library has its row; a row for one that is gone is a path that does not exist (checkPaths). */
function checkLayoutTable(root, problems) {
  const layout = fs.readFileSync(path.join(root, LAYOUT_DOC), 'utf8');
  const listed = new Set([...layout.matchAll(/^\| `libs\/([a-z0-9-]+)` \|/gm)].map((match) => match[1]));
  for (const lib of fs.readdirSync(path.join(root, 'libs'))) {
    if (!fs.statSync(path.join(root, 'libs', lib)).isDirectory()) continue;
    if (!listed.has(lib)) problems.push(`${LAYOUT_DOC}: libs/${lib} is missing from the repository layout table`);
  }
}

/** The layer table (`| 3 | \`db\`, \`queue\` |`) lists each layer of scripts/layers.js with the same libraries. */
function checkLayerTable(root, problems) {
  const layersFile = path.join(root, 'scripts', 'layers.js');
  if (!fs.existsSync(layersFile)) return;
  const { LAYERS } = require(layersFile);
  const layout = fs.readFileSync(path.join(root, LAYOUT_DOC), 'utf8');
  const rows = new Map(
    [...layout.matchAll(/^\| (\d+) \| (.+) \|$/gm)].map(([, layer, cell]) => [
      Number(layer),
      [...cell.matchAll(/`([a-z0-9-]+)`/g)].map((match) => match[1]).sort(),
    ]),
  );
  const layers = new Set([...rows.keys(), ...LAYERS.keys()]);
  for (const layer of [...layers].sort((a, b) => a - b)) {
    const documented = (rows.get(layer) ?? []).join(', ');
    const enforced = [...(LAYERS[layer] ?? [])].sort().join(', ');
    if (documented !== enforced)
      problems.push(
        `${LAYOUT_DOC}: layer ${layer} lists ${documented || 'nothing'}; scripts/layers.js has ${enforced || 'nothing'}`,
      );
  }
}

/** What the docs under `root` name that does not exist there, one line each. */
function docsProblems(root) {
  const sources = indexSources(root);
  const problems = [];
  for (const doc of documents(root)) {
    checkNames(doc, sources, problems);
    checkPaths(root, doc, problems);
  }
  checkLayoutTable(root, problems);
  checkLayerTable(root, problems);
  return problems;
}

module.exports = { docsProblems };

if (require.main === module) {
  const problems = docsProblems(path.resolve(__dirname, '..'));
  if (problems.length > 0) {
    process.stderr.write(`The docs name what does not exist:\n  ${problems.join('\n  ')}\n`);
    process.exit(1);
  }
}
