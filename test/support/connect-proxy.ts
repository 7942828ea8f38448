// An HTTP proxy that only tunnels (CONNECT), as corporate proxies in front of registries and git
// servers do: it records every CONNECT target (`host:port`) and pipes the bytes both ways.
// Anything else is answered 405.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';

export interface ConnectProxy {
  /** `http://127.0.0.1:PORT` */
  url: string;
  /** The CONNECT targets in arrival order (clear it with `connects.length = 0`). */
  connects: string[];
  close(): Promise<void>;
}

export async function startConnectProxy(): Promise<ConnectProxy> {
  const connects: string[] = [];
  const proxy = createServer((_req, res) => { res.writeHead(405); res.end(); });
  proxy.on('connect', (req, client, head) => {
    connects.push(String(req.url));
    const [host, port] = String(req.url).split(':');
    const upstream = connect(Number(port), host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', () => r()));
  return {
    url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
    connects,
    close: async () => {
      proxy.closeAllConnections?.();
      await new Promise<void>((r) => proxy.close(() => r()));
    },
  };
}
