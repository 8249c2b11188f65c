/**
 * The floor of any gateway: an HTTP server that posts each request's body to the upstream and answers with its
 * answer, in one process, with nothing else. Started by bench/floor.ts; prints `listening <port>`.
 */
import http from 'node:http';
import { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { request } from 'undici';

const { values } = parseArgs({ options: { upstream: { type: 'string' } } });
const upstream = values.upstream ?? '';

const server = http.createServer((req, res) => {
  let body = '';
  req.setEncoding('utf8');
  req.on('data', (chunk: string) => (body += chunk));
  req.on('end', () => {
    void request(upstream, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer none' },
      body,
    }).then(async (response) => {
      res.writeHead(response.statusCode, { 'content-type': 'application/json' });
      res.end(await response.body.text());
    });
  });
});
server.listen(0, '127.0.0.1', () => console.log(`listening ${(server.address() as AddressInfo).port}`));
