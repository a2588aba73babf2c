/**
 * The floor under any Node.js API in the search benchmark: a bare HTTP hop that hands each request to OpenSearch
 * as it came and the answer back, with nothing else (no auth, rate limit, connector, planning or reshaping).
 * ours - hop is our own work; hop - raw is what one Node process between the caller and the engine costs on this
 * machine, whatever it does. Run by search-bench.ts in its own process; prints {"url": ...} when listening.
 *   node bare-hop.ts <opensearch url, or several comma-separated> <connections (per node)>
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { KeepAliveClient } from './http-client.ts';

const [engineUrl, connections] = process.argv.slice(2);
if (!engineUrl || !connections) throw new Error('usage: bare-hop.ts <opensearch url> <connections>');
const engine = new KeepAliveClient(engineUrl, Number(connections));

const server = createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    engine.post(request.url ?? '/', Buffer.concat(chunks).toString('utf8')).then(
      ({ status, text }) => {
        response.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
        response.end(text);
      },
      (error: unknown) => {
        response.writeHead(502, { 'content-type': 'text/plain' });
        response.end(String(error));
      },
    );
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  console.log(JSON.stringify({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }));
});
