/**
 * The request a playground run sent, written as curl and as OpenAI SDK code (Python, Node.js) that sends the same
 * body. An uploaded image is not pasted in as megabytes of base64: the code reads the file by its name, so it runs
 * from the folder the image is in.
 */
export interface SentRequest {
  /** Under /v1: `/chat/completions`, `/embeddings` or `/images/edits`. */
  path: '/chat/completions' | '/embeddings' | '/images/edits';
  /** The body sent, with each uploaded image replaced by `fileMarker(i)`. */
  body: Record<string, unknown>;
  files: { name: string; type: string }[];
}

export type SnippetLanguage = 'curl' | 'python' | 'node';

const MARKER = /"\\u0000file:(\d+)\\u0000"/g;

/** Stands for the i-th uploaded file in `SentRequest.body`. */
export function fileMarker(index: number): string {
  return `\u0000file:${index}\u0000`;
}

/** What a snippet shows of the key: its first characters, unless revealed; a placeholder when none was entered. */
export function shownKey(apiKey: string, revealed: boolean): string {
  if (!apiKey) return 'YOUR_API_KEY';
  return revealed ? apiKey : `${apiKey.slice(0, 6)}${'•'.repeat(12)}`;
}

export function snippet(language: SnippetLanguage, request: SentRequest, base: string, key: string): string {
  if (language === 'curl') return curlSnippet(request, base, key);
  return language === 'python' ? pythonSnippet(request, base, key) : nodeSnippet(request, base, key);
}

const quoteShell = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

/** The body on standard input (a heredoc): no argument-length limit, however large. */
function curlSnippet({ path, body, files }: SentRequest, base: string, key: string): string {
  const json = JSON.stringify(body, null, 2);
  // Unquoted only when a file is read in by command substitution; then \, $ and ` of the JSON are escaped.
  const heredoc =
    files.length === 0
      ? `<<'JSON'\n${json}`
      : `<<JSON\n${json
          .replace(/[\\$`]/g, (character) => `\\${character}`)
          .replace(/"\\\\u0000file:(\d+)\\\\u0000"/g, (_, index: string) => {
            const file = files[Number(index)];
            return `"data:${file.type};base64,$(base64 < ${quoteShell(file.name)} | tr -d '\\n')"`;
          })}`;
  return [
    `curl ${body.stream ? '-N ' : ''}${base}${path} \\`,
    `  -H "Authorization: Bearer ${key}" \\`,
    `  -H "Content-Type: application/json" \\`,
    `  --data-binary @- ${heredoc}`,
    'JSON',
  ].join('\n');
}

/** A Python literal of a JSON value (True, False, None), indented like `json.dumps(indent=4)`. */
function pythonLiteral(value: unknown, indent = ''): string {
  const inner = `${indent}    `;
  if (value === null || value === undefined) return 'None';
  if (typeof value === 'boolean') return value ? 'True' : 'False';
  if (Array.isArray(value))
    return value.length === 0
      ? '[]'
      : `[\n${value.map((item) => inner + pythonLiteral(item, inner)).join(',\n')}\n${indent}]`;
  if (typeof value === 'object') {
    const entries = Object.entries(value);
    if (entries.length === 0) return '{}';
    return `{\n${entries.map(([name, item]) => `${inner}${JSON.stringify(name)}: ${pythonLiteral(item, inner)}`).join(',\n')}\n${indent}}`;
  }
  return JSON.stringify(value);
}

/** `name=value` arguments of an SDK call, one per line. */
function pythonArguments(body: Record<string, unknown>): string {
  return Object.entries(body)
    .map(([name, value]) => `    ${name}=${pythonLiteral(value, '    ')},`)
    .join('\n');
}

function pythonSnippet({ path, body, files }: SentRequest, base: string, key: string): string {
  const client = `client = OpenAI(api_key="${key}", base_url="${base}")`;
  if (path === '/images/edits') {
    const literal = pythonLiteral(body).replace(MARKER, (_, index: string) => {
      const file = files[Number(index)];
      return `data_uri(${JSON.stringify(file.name)}, ${JSON.stringify(file.type)})`;
    });
    return `import base64
from openai import OpenAI

def data_uri(path, mime):
    with open(path, "rb") as file:
        return f"data:{mime};base64," + base64.b64encode(file.read()).decode()

${client}
# The gateway's image edit takes JSON (one to three images and an instruction), so it is sent as a raw POST.
result = client.post("/images/edits", cast_to=object, body=${literal})
for image in result["data"]:
    print(image["url"])`;
  }
  if (path === '/embeddings')
    return `from openai import OpenAI

${client}
result = client.embeddings.create(
${pythonArguments(body)}
)
print([len(item.embedding) for item in result.data])`;
  return `from openai import OpenAI

${client}
stream = client.chat.completions.create(
${pythonArguments(body)}
)
for chunk in stream:
    if chunk.choices:
        print(chunk.choices[0].delta.content or "", end="", flush=True)
print()`;
}

function nodeSnippet({ path, body, files }: SentRequest, base: string, key: string): string {
  const client = `const client = new OpenAI({ apiKey: '${key}', baseURL: '${base}' });`;
  const literal = JSON.stringify(body, null, 2);
  if (path === '/images/edits') {
    const withFiles = literal.replace(MARKER, (_, index: string) => {
      const file = files[Number(index)];
      return `dataUri(${JSON.stringify(file.name)}, ${JSON.stringify(file.type)})`;
    });
    return `import fs from 'node:fs';
import OpenAI from 'openai';

const dataUri = (path, mime) => 'data:' + mime + ';base64,' + fs.readFileSync(path).toString('base64');
${client}
// The gateway's image edit takes JSON (one to three images and an instruction), so it is sent as a raw POST.
const result = await client.post('/images/edits', { body: ${withFiles} });
for (const image of result.data) console.log(image.url);`;
  }
  if (path === '/embeddings')
    return `import OpenAI from 'openai';

${client}
const result = await client.embeddings.create(${literal});
console.log(result.data.map((item) => item.embedding.length));`;
  return `import OpenAI from 'openai';

${client}
const stream = await client.chat.completions.create(${literal});
for await (const chunk of stream) process.stdout.write(chunk.choices[0]?.delta?.content ?? '');
process.stdout.write('\\n');`;
}
