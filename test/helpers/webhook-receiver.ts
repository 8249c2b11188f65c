import { createServer, IncomingHttpHeaders, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { WebhookEvent } from '@gateway/webhooks';
import { evaluateSnippet } from './readme';

export interface ReceivedWebhook {
  headers: IncomingHttpHeaders;
  rawBody: string;
  body: WebhookEvent;
  answered: number;
  at: number;
}

/**
 * An application's webhook endpoint: a real HTTP server that records every delivery and answers with scripted
 * statuses (200 once the script runs out).
 */
export class WebhookReceiver {
  readonly received: ReceivedWebhook[] = [];
  private script: number[] = [];
  private server?: Server;
  url = '';
  /** What a 2xx answer says. */
  body = 'ok';
  /** Runs before each answer is sent: what the world does while a delivery is under way. */
  beforeAnswer?: () => Promise<void>;

  constructor(private readonly host = '127.0.0.1') {}

  async start(): Promise<this> {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => void this.answerDelivery(request.headers, Buffer.concat(chunks), response));
    });
    await new Promise<void>((resolve) => this.server!.listen(0, this.host, resolve));
    this.url = `http://${this.host}:${(this.server.address() as AddressInfo).port}/hooks`;
    return this;
  }

  private async answerDelivery(headers: IncomingHttpHeaders, bytes: Buffer, response: ServerResponse): Promise<void> {
    const rawBody = bytes.toString('utf8');
    const status = this.script.shift() ?? 200;
    this.received.push({
      headers,
      rawBody,
      body: JSON.parse(rawBody),
      answered: status,
      at: Date.now(),
    });
    await this.beforeAnswer?.();
    response.writeHead(status, { 'content-type': 'text/plain' }).end(status < 300 ? this.body : 'not now');
  }

  /** The next deliveries get these statuses, in order. */
  answer(...statuses: number[]): void {
    this.script = statuses;
  }

  reset(): void {
    this.received.length = 0;
    this.script = [];
    this.body = 'ok';
  }

  delivered(taskId: string): ReceivedWebhook[] {
    return this.received.filter((hook) => hook.body.data.task_id === taskId);
  }

  stop(): Promise<void> {
    return new Promise((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

/** The README's receiver-side verification snippet, as a receiver would paste it. */
export function readmeVerifier(
  root: string,
): (secretKey: string, headers: Record<string, unknown>, rawBody: string) => boolean {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const snippet = readme
    .split('```js\n')
    .slice(1)
    .map((block) => block.split('```')[0])
    .find((block) => block.includes('function verifyWebhook'));
  if (!snippet) throw new Error('the README has no verifyWebhook snippet');
  return evaluateSnippet(snippet, 'verifyWebhook');
}
