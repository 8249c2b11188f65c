import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { request } from 'undici';
import { readCappedBody } from './capped-body';

/** One server for the file: /bytes/N answers N bytes, /stall sends a little and never finishes. */
let server: Server;
let origin: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === '/stall') return res.writeHead(200).write('partial');
    res.end(Buffer.alloc(Number(req.url!.split('/').pop()), 0x61));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

async function bodyOf(path: string) {
  return (await request(`${origin}${path}`, { signal: AbortSignal.timeout(300) })).body;
}

describe('readCappedBody', () => {
  it('returns a body of exactly maxBytes whole', async () => {
    expect(await readCappedBody(await bodyOf('/bytes/4096'), 4096)).toEqual({
      bytes: Buffer.alloc(4096, 0x61),
      truncated: false,
    });
  });

  it('keeps the first maxBytes of a longer body and reports it truncated', async () => {
    expect(await readCappedBody(await bodyOf('/bytes/8'), 3)).toEqual({ bytes: Buffer.from('aaa'), truncated: true });
  });

  it('returns what arrived before a read error, with the error', async () => {
    const read = await readCappedBody(await bodyOf('/stall'), 1024);
    expect(read.bytes.toString()).toBe('partial');
    expect(read.truncated).toBe(false);
    expect(read.error).toBeDefined();
  });
});
