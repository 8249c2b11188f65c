import { GatewayError, toEnvelope } from '@gateway/common';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply } from 'fastify';
import fs from 'node:fs';
import path from 'node:path';
import { Logger } from 'pino';

/**
 * No inline script, no other origin: the console's code is its own hashed files. Inline styles stay allowed,
 * since the component library sets CSS variables in style attributes.
 */
const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const HASHED_ASSET = /\/assets\/[^/]+-[A-Za-z0-9_-]{8}\.[a-z0-9]+(\.br|\.gz)?$/;

/** The console's build (`dist/console`, made by `npm run build`), looked for above this file wherever it runs from. */
export function findConsoleBuild(start = __dirname): string | null {
  for (let dir = start; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'dist', 'console');
    if (fs.existsSync(path.join(candidate, 'index.html'))) return candidate;
    if (path.dirname(dir) === dir) return null;
  }
}

/**
 * Serves the console at /console: hashed assets with a year-long immutable cache (and their precompressed .br/.gz
 * twins), index.html uncached for every client route. /console/api stays the API's: an unknown API path answers
 * the error envelope, not the page.
 */
export async function serveConsole(fastify: FastifyInstance, dir: string | null, logger: Logger): Promise<void> {
  if (!dir) {
    logger.warn('console build not found (dist/console): run `npm run build` to serve the console at /console');
    return;
  }
  const indexHtml = fs.readFileSync(path.join(dir, 'index.html'));
  await fastify.register(fastifyStatic, {
    root: dir,
    prefix: '/console/',
    wildcard: false,
    index: false,
    preCompressed: true,
    cacheControl: false,
    setHeaders: (response, filePath) => {
      response.setHeader(
        'cache-control',
        HASHED_ASSET.test(filePath) ? 'public, max-age=31536000, immutable' : 'no-cache',
      );
      response.setHeader('x-content-type-options', 'nosniff');
    },
  });
  const sendPage = (reply: FastifyReply) =>
    reply
      .header('content-type', 'text/html; charset=utf-8')
      .header('cache-control', 'no-cache')
      .header('content-security-policy', CONSOLE_CSP)
      .header('x-content-type-options', 'nosniff')
      .header('referrer-policy', 'same-origin')
      .send(indexHtml);
  fastify.get('/console', (_request, reply) => reply.redirect('/console/', 302));
  fastify.get('/console/', (_request, reply) => sendPage(reply));
  fastify.get('/console/*', (request, reply) => {
    if (request.url.startsWith('/console/api/') || request.url.startsWith('/console/assets/')) {
      const error = new GatewayError('NotFound', `no route ${request.method} ${request.url.split('?')[0]}`);
      return reply.code(error.status).send(toEnvelope(error, request.id));
    }
    return sendPage(reply);
  });
}
