/**
 * `badge-sim show-trace FILE` without `--out`: the page served on 127.0.0.1 only (TV5), at
 * `/`, until Ctrl+C. The page is made once; the server answers nothing else.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ServedPage {
  readonly url: string;
  close(): Promise<void>;
}

/** Serves `html` at `http://127.0.0.1:<port>/` (`port` 0: any free one). */
export function servePage(html: string, port: number): Promise<ServedPage> {
  const body = Buffer.from(html, 'utf8');
  const server: Server = createServer((request, response) => {
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.writeHead(405, { 'content-type': 'application/json', allow: 'GET, HEAD' });
      response.end(JSON.stringify({ error: 'method_not_allowed', field: 'method' }));
      return;
    }
    if (request.url !== '/' && request.url !== '/index.html') {
      response.writeHead(404, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ error: 'not_found', field: 'path', hint: 'the page is at /' }));
      return;
    }
    response.writeHead(200, {
      'content-type': 'text/html; charset=utf-8',
      'content-length': body.length,
      'cache-control': 'no-store',
    });
    response.end(request.method === 'HEAD' ? undefined : body);
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      const { port: bound } = server.address() as AddressInfo;
      resolve({
        url: `http://127.0.0.1:${bound}/`,
        close: () => new Promise((done) => server.close(() => done())),
      });
    });
  });
}
