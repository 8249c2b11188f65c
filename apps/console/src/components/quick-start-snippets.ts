/**
 * The Quick start's snippets, as text. Kept apart from the page so the e2e suite runs the signed-request and
 * webhook snippets themselves with node against a real gateway (test/e2e/quick-start-snippets.e2e-spec.ts).
 */
export type Language = 'curl' | 'python' | 'node';
export type Capability = 'embeddings' | 'chat' | 'imageEdit';

/** Ready-to-paste calls for each capability, against this gateway's own address, with a key placeholder. */
export function bearerSnippets(base: string): Record<Capability, Record<Language, string>> {
  const imageBody = `{
    "model": "x-image-edit-plus",
    "input": {"messages": [{"role": "user", "content": [
      {"image": "https://example.com/photo.png"},
      {"text": "Make the sky a sunset"}
    ]}]},
    "parameters": {"n": 1}
  }`;
  return {
    embeddings: {
      curl: `curl ${base}/embeddings \\
  -H "Authorization: Bearer YOUR_API_KEY" \\
  -H "Content-Type: application/json" \\
  -d '{"model": "text-embedding-v4", "input": "The quick brown fox"}'`,
      python: `from openai import OpenAI

client = OpenAI(api_key="YOUR_API_KEY", base_url="${base}")
result = client.embeddings.create(model="text-embedding-v4", input="The quick brown fox")
print(len(result.data[0].embedding))`,
      node: `import OpenAI from 'openai';

const client = new OpenAI({ apiKey: 'YOUR_API_KEY', baseURL: '${base}' });
const result = await client.embeddings.create({ model: 'text-embedding-v4', input: 'The quick brown fox' });
console.log(result.data[0].embedding.length);`,
    },
    chat: {
      curl: `curl ${base}/chat/completions \\
  -H "Authorization: Bearer YOUR_API_KEY" \\
  -H "Content-Type: application/json" \\
  -d '{"model": "x-chat", "messages": [{"role": "user", "content": "Hello!"}]}'`,
      python: `from openai import OpenAI

client = OpenAI(api_key="YOUR_API_KEY", base_url="${base}")
reply = client.chat.completions.create(model="x-chat", messages=[{"role": "user", "content": "Hello!"}])
print(reply.choices[0].message.content)`,
      node: `import OpenAI from 'openai';

const client = new OpenAI({ apiKey: 'YOUR_API_KEY', baseURL: '${base}' });
const reply = await client.chat.completions.create({ model: 'x-chat', messages: [{ role: 'user', content: 'Hello!' }] });
console.log(reply.choices[0].message.content);`,
    },
    imageEdit: {
      curl: `curl ${base}/images/edits \\
  -H "Authorization: Bearer YOUR_API_KEY" \\
  -H "Content-Type: application/json" \\
  -d '${imageBody.replace(/\n {2}/g, '\n')}'`,
      python: `from openai import OpenAI

client = OpenAI(api_key="YOUR_API_KEY", base_url="${base}")
# The gateway's image edit takes JSON (one to three images and an instruction), so it is sent as a raw POST.
result = client.post("/images/edits", cast_to=object, body=${imageBody.replace(/\n {2}/g, '\n')})
print(result["data"][0]["url"])`,
      node: `import OpenAI from 'openai';

const client = new OpenAI({ apiKey: 'YOUR_API_KEY', baseURL: '${base}' });
// The gateway's image edit takes JSON (one to three images and an instruction), so it is sent as a raw POST.
const result = await client.post('/images/edits', { body: ${imageBody.replace(/\n {2}/g, '\n')} });
console.log(result.data[0].url);`,
    },
  };
}

/**
 * A signed request (App ID + Secret Key instead of a Bearer key): a Node 18+ module (save as sign.mjs) that needs
 * nothing but node:crypto and fetch. The Secret Key comes from the environment, never from the page.
 */
export function signedRequestSnippet(base: string, appId: string): string {
  return `// node sign.mjs (Node 18+), with SECRET_KEY set to this application's Secret Key
import { createHash, createHmac, randomUUID } from 'node:crypto';
import { env } from 'node:process';

const appId = '${appId}';
const secretKey = env.SECRET_KEY;
const url = new URL('${base}/embeddings');
const body = JSON.stringify({ model: 'text-embedding-v4', input: 'The quick brown fox' });

const timestamp = String(Math.floor(Date.now() / 1000));
const nonce = randomUUID();
const bodyHash = createHash('sha256').update(body).digest('hex');
const signature = createHmac('sha256', secretKey)
  .update(\`POST\\n\${url.pathname}\${url.search}\\n\${timestamp}\\n\${nonce}\\n\${bodyHash}\`)
  .digest('base64');

const response = await fetch(url, {
  method: 'POST',
  headers: {
    'Content-Type': 'application/json',
    'X-App-Id': appId,
    'X-Timestamp': timestamp,
    'X-Nonce': nonce,
    'X-Signature': signature,
  },
  body,
});
const answer = await response.json();
console.log(response.status, answer.data?.[0]?.embedding.length ?? answer.error);`;
}

/**
 * A webhook receiver that verifies each delivery with the Secret Key before trusting it: a Node module (save as
 * hooks.mjs) on node:http and node:crypto only, listening on PORT (default 8080).
 */
export function webhookSnippet(): string {
  return `// node hooks.mjs, with SECRET_KEY set to this application's Secret Key; the callback URL points here
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import { env } from 'node:process';

function verifyWebhook(secretKey, headers, rawBody) {
  const id = headers['webhook-id'];
  const timestamp = headers['webhook-timestamp'];
  const signatures = headers['webhook-signature'];
  if (!id || !timestamp || !signatures || !/^\\d+$/.test(timestamp)) return false;
  if (Math.abs(Date.now() / 1000 - Number(timestamp)) > 300) return false;
  const expected = createHmac('sha256', secretKey).update(\`\${id}.\${timestamp}.\`).update(rawBody).digest();
  return signatures.split(' ').some((entry) => {
    const [version, signature] = entry.split(',');
    const candidate = Buffer.from(signature ?? '', 'base64');
    return version === 'v1' && candidate.length === expected.length && timingSafeEqual(candidate, expected);
  });
}

createServer((request, response) => {
  const chunks = [];
  request.on('data', (chunk) => chunks.push(chunk));
  request.on('end', () => {
    const rawBody = Buffer.concat(chunks);
    if (!verifyWebhook(env.SECRET_KEY, request.headers, rawBody)) return response.writeHead(401).end();
    const event = JSON.parse(rawBody.toString('utf8'));
    // Delivery is at least once: de-duplicate on the webhook-id header.
    console.log('verified', event.type, event.data.task_id);
    response.writeHead(204).end();
  });
}).listen(Number(env.PORT ?? 8080));`;
}
