import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { request } from 'undici';
import { readBodyWithin, readCappedBody } from './capped-body';

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

/**
 * Only the stalled body has a deadline: its abort is what ends the read. A whole body gets the time it needs, since a
 * loaded in-band run can pause longer than a short deadline (a major GC) before the first bytes are read.
 */
async function responseOf(path: string) {
  return request(`${origin}${path}`, path === '/stall' ? { signal: AbortSignal.timeout(300) } : {});
}

async function bodyOf(path: string) {
  return (await responseOf(path)).body;
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

describe('readBodyWithin', () => {
  it('returns a whole body of at most maxBytes', async () => {
    expect(await readBodyWithin(await responseOf('/bytes/16'), 16)).toEqual({ bytes: Buffer.alloc(16, 0x61) });
  });

  it('refuses a body whose Content-Length is over the cap, and one that goes past it', async () => {
    expect(await readBodyWithin(await responseOf('/bytes/17'), 16)).toEqual({ tooLarge: true });
    const chunked = await responseOf('/bytes/17');
    delete chunked.headers['content-length'];
    expect(await readBodyWithin(chunked, 16)).toEqual({ tooLarge: true });
  });

  it('reports a failed read as an error', async () => {
    expect(await readBodyWithin(await responseOf('/stall'), 1024)).toEqual({ error: expect.anything() });
  });
});
