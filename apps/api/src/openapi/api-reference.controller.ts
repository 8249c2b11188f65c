import { Controller, Get, Header, SetMetadata } from '@nestjs/common';
import Fastify, { FastifyPluginCallback } from 'fastify';
import { UNDOCUMENTED } from './openapi-document';

/** Scalar's bundle and our own start script: no inline script, nothing from another origin. */
const REFERENCE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>Model Gateway API reference</title>
    <link rel="icon" href="data:," />
  </head>
  <body>
    <div id="app"></div>
    <script src="/docs/scalar.js"></script>
    <script src="/docs/start.js"></script>
  </body>
</html>
`;

const START = `Scalar.createApiReference('#app', ${JSON.stringify({
  url: '/v1/openapi.json',
  // The page talks to nothing but this api: no web fonts, telemetry, hosted agent or hosting toolbar.
  withDefaultFonts: false,
  telemetry: false,
  agent: { disabled: true },
  showDeveloperTools: 'never',
  hideClientButton: true,
  // The schemas are shown where the operations use them; a section of their own would read as the Models tag.
  hideModels: true,
})});
`;

/**
 * GET /docs: the reference page of /v1/openapi.json, rendered in the browser by Scalar's standalone bundle, which
 * the api serves itself from node_modules (@scalar/fastify-api-reference), so the page works offline.
 */
@Controller('docs')
@SetMetadata(UNDOCUMENTED, true)
export class ApiReferenceController {
  private bundle?: Promise<string>;

  @Get()
  @Header('content-type', 'text/html; charset=utf-8')
  @Header('content-security-policy', REFERENCE_CSP)
  @Header('x-content-type-options', 'nosniff')
  @Header('referrer-policy', 'same-origin')
  page(): string {
    return PAGE;
  }

  @Get('start.js')
  @Header('content-type', 'text/javascript; charset=utf-8')
  @Header('x-content-type-options', 'nosniff')
  start(): string {
    return START;
  }

  @Get('scalar.js')
  @Header('content-type', 'text/javascript; charset=utf-8')
  @Header('cache-control', 'public, max-age=3600')
  @Header('x-content-type-options', 'nosniff')
  scalar(): Promise<string> {
    this.bundle ??= loadScalarBundle();
    return this.bundle;
  }
}

/**
 * The package holds the bundle as a string its Fastify plugin serves, so it is taken from that route, once, on a
 * Fastify instance of its own. The package is ES modules only, which Node's own require loads (Node >= 20.19); it
 * is taken from the built-in module itself, since Jest's stand-in for `node:module` cannot load ES modules.
 */
async function loadScalarBundle(): Promise<string> {
  const nodeRequire = process.getBuiltinModule('node:module').createRequire(__filename);
  const { default: apiReference } = nodeRequire('@scalar/fastify-api-reference') as {
    default: FastifyPluginCallback<{ routePrefix: string; configuration: { url: string } }>;
  };
  const scratch = Fastify({ logger: false });
  try {
    await scratch.register(apiReference, { routePrefix: '/reference', configuration: { url: '/' } });
    const answer = await scratch.inject('/reference/js/scalar.js');
    if (answer.statusCode !== 200) throw new Error(`Scalar's bundle answered ${answer.statusCode}`);
    return answer.body;
  } finally {
    await scratch.close();
  }
}
