// A plain static file server over HTTPS (test CA), like a web server or object store serving a
// directory: files only (no listings), content type by extension alone — application/json for
// .json, application/gzip for .tar.gz/.tgz, application/octet-stream for everything else, as
// nginx's default — and no knowledge of registries or git. Serves a module mirror's OUT for the
// conformance test and a bare git repository over git's dumb HTTP protocol.
import { createReadStream, promises as fs } from 'node:fs';
import * as path from 'node:path';
import { TestHttpsServer } from './https-server';

function contentType(file: string): string {
  if (file.endsWith('.json')) return 'application/json';
  if (file.endsWith('.tar.gz') || file.endsWith('.tgz')) return 'application/gzip';
  return 'application/octet-stream';
}

/** Serves the files below `root` at `prefix` (e.g. '/' or '/repo.git/'); the query string is ignored. */
export function serveDirectory(server: TestHttpsServer, prefix: string, root: string): void {
  const base = path.resolve(root);
  server.route(prefix, async (_req, res, url) => {
    let rel: string;
    try { rel = decodeURIComponent(url.pathname.slice(prefix.length)); } catch { return false; }
    const file = path.resolve(base, rel);
    if (file !== base && !file.startsWith(base + path.sep)) return false;
    const st = await fs.stat(file).catch(() => undefined);
    if (!st?.isFile()) return false;
    res.writeHead(200, { 'Content-Type': contentType(file), 'Content-Length': st.size });
    await new Promise<void>((resolve, reject) => createReadStream(file).on('error', reject).pipe(res).on('finish', resolve));
  });
}

export async function startStaticServer(root: string): Promise<TestHttpsServer> {
  const server = await new TestHttpsServer().start();
  serveDirectory(server, '/', root);
  return server;
}
