import fs from 'node:fs';
import path from 'node:path';
import { Browser, chromium } from 'playwright-core';
import { checkContract } from '../helpers/contract';
import { getJson, postJson, ROOT, RunningApi, startApi, testEnv } from '../helpers/gateway';

/** Where the suite leaves the reference page's screenshot; not kept in git. */
const SHOTS = path.join(ROOT, 'test-output', 'openapi');

interface OpenApi {
  openapi: string;
  paths: Record<string, Record<string, { security: unknown[]; responses: Record<string, unknown> }>>;
}

/** The validator is ES modules only: Node's own require loads it, which Jest's stand-in for `node:module` cannot. */
async function validateOpenApi(document: unknown): Promise<{ valid: boolean; errors?: unknown }> {
  const nodeRequire = process.getBuiltinModule('node:module').createRequire(__filename);
  const { Validator } = nodeRequire('@seriousme/openapi-schema-validator');
  return new Validator().validate(document);
}

jest.setTimeout(120_000);

describe('OpenAPI document', () => {
  let api: RunningApi;
  let document: OpenApi;

  beforeAll(async () => {
    api = await startApi(testEnv());
    const answer = await getJson(`${api.url}/v1/openapi.json`);
    expect(answer.status).toBe(200);
    document = answer.body;
  });

  afterAll(() => api?.close());

  it('serves an OpenAPI 3.1 document, without credentials, that validates against the OpenAPI 3.1 schema', async () => {
    expect(document.openapi).toBe('3.1.0');
    const result = await validateOpenApi(document);
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
  });

  it('lists every /v1 and /console/api operation, each of which the api serves', async () => {
    const operations = Object.entries(document.paths).flatMap(([route, verbs]) =>
      Object.keys(verbs).map((verb) => `${verb.toUpperCase()} ${route}`),
    );
    expect(operations).toEqual(
      expect.arrayContaining([
        'POST /v1/embeddings',
        'POST /v1/chat/completions',
        'POST /v1/responses',
        'GET /v1/responses/{id}',
        'POST /v1/images/edits',
        'GET /v1/files/{id}',
        'GET /v1/models',
        'GET /v1/models/{id}',
        'GET /v1/tasks/{id}',
        'POST /console/api/auth/login',
        'PATCH /console/api/admin/users/{id}',
        'GET /console/api/applications/{id}/usage',
        'GET /console/api/applications/{id}/keys',
        'POST /console/api/applications/{id}/keys',
        'DELETE /console/api/applications/{id}/keys/{keyId}',
        'GET /console/api/applications/{id}/refusals',
        'GET /console/api/refusals',
        'GET /console/api/applications/{id}/budget',
        'GET /console/api/applications/{id}/usage/export',
        'GET /console/api/usage',
        'GET /console/api/usage/export',
        'GET /console/api/applications/{id}/requests/export',
        'GET /console/api/requests/export',
      ]),
    );
    expect(operations).toHaveLength(52);
    // The router's own 404 names the route it lacks; a documented operation never answers it.
    for (const operation of operations) {
      const [verb, route] = operation.split(' ');
      const answer = await fetch(`${api.url}${route.replace(/\{[^}]+\}/g, 'x')}`, { method: verb });
      const body = (await answer.json()) as { error?: { message?: string } };
      expect(`${operation}: ${body.error?.message ?? answer.status}`).not.toMatch(/: no route /);
    }
  });

  it('describes the security of each operation: an API key or a signed request on /v1, the session on the console', () => {
    const chat = document.paths['/v1/chat/completions'].post;
    expect(chat.security).toEqual([{ ApiKey: [] }, { AppId: [], Timestamp: [], Nonce: [], Signature: [] }]);
    expect(document.paths['/console/api/applications'].post.security).toEqual([{ ConsoleSession: [], CsrfToken: [] }]);
    expect(document.paths['/console/api/auth/login'].post.security).toEqual([]);
    expect(Object.keys(chat.responses)).toEqual(
      expect.arrayContaining(['200', '202', '400', '401', '403', '429', '500', '503', '504']),
    );
  });

  it('fails a test whose answer breaks the document: an undocumented status, a missing header, another media type, a body off its schema', async () => {
    const headers = (type: string) => new Headers({ 'content-type': type, 'x-request-id': 'req_0' });
    const json = headers('application/json; charset=utf-8');
    const models = `${api.url}/v1/models`;
    await expect(checkContract('GET', models, { status: 418, headers: json, body: {} })).rejects.toThrow(
      'GET /v1/models answered 418, a status the OpenAPI document does not list for it',
    );
    await expect(
      checkContract('GET', models, { status: 200, headers: headers('text/plain'), body: 'hi' }),
    ).rejects.toThrow('as text/plain; documented: application/json');
    await expect(
      checkContract('GET', models, { status: 200, headers: new Headers(), body: { object: 'list', data: [] } }),
    ).rejects.toThrow('without the X-Request-Id header the OpenAPI document promises');
    await expect(
      checkContract('GET', models, { status: 200, headers: json, body: { object: 'list', data: [{ id: 1 }] } }),
    ).rejects.toThrow('/data/0/id must be string');
    // What the api itself answers passes: the helpers check every answer this way.
    const refused = await postJson(`${api.url}/v1/embeddings`, { model: 'm', input: 'x' });
    expect(refused.status).toBe(401);
  });

  it('renders the reference page in Chromium from the api alone, with no request to another origin', async () => {
    const browser: Browser = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
      timeout: 90_000,
    });
    try {
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      const elsewhere: string[] = [];
      const problems: string[] = [];
      page.on('request', (request) => {
        if (!request.url().startsWith(api.url) && !request.url().startsWith('data:')) elsewhere.push(request.url());
      });
      page.on('pageerror', (error) => problems.push(error.message));
      page.on('response', (response) => {
        if (response.status() >= 400) problems.push(`${response.status()} ${response.url()}`);
      });
      page.on('console', (message) => {
        if (message.type() === 'error') problems.push(message.text());
      });
      const answer = await page.goto(`${api.url}/docs`);
      expect(answer?.status()).toBe(200);
      expect(answer?.headers()['content-security-policy']).toContain("script-src 'self'");
      const rendered = page
        .getByText('Create embeddings')
        .first()
        .waitFor({ timeout: 30_000 })
        .then(
          () => true,
          () => false,
        );
      const shown = await rendered;
      fs.mkdirSync(SHOTS, { recursive: true });
      await page.screenshot({ path: path.join(SHOTS, 'docs.png') });
      expect(problems).toEqual([]);
      expect(elsewhere).toEqual([]);
      expect(shown).toBe(true);
      await page.getByText('Model Gateway').first().waitFor();
      // The chat operation: its request schema (the one ajv checks bodies with), its answers and the SSE stream.
      await page.getByText('Chat', { exact: true }).first().click();
      await page.getByText('Create a chat completion').first().click();
      await page.getByRole('heading', { name: 'Create a chat completion' }).waitFor({ timeout: 15_000 });
      await page.screenshot({ path: path.join(SHOTS, 'docs-chat.png'), fullPage: false });
    } finally {
      await browser.close();
    }
  });
});
