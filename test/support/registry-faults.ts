// Fault switches for the test registry: each one makes matching requests fail in one specific way.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendJson } from './https-server';

export type Fault =
  | '500' | 'hang' | 'slow-body' | 'truncated' | 'invalid-json' | 'wrong-type' | 'redirect-loop'
  | 'redirect-second-host' | 'huge-body' | '401' | '403' | '404' | '429';

export interface FaultSpec {
  kind: Fault;
  /** Only the next N matching requests fail; afterwards the prefix behaves normally. */
  times?: number;
  /** Seconds for Retry-After on '429' (default 1). */
  retryAfter?: number;
}

/** 10 MB of valid JSON, streamed without Content-Length. */
export const HUGE_BODY_BYTES = 10 * 1024 * 1024;

/** Apply a fault. Returns false when the request should be handled normally (e.g. redirect target). */
export function applyFault(fault: FaultSpec, req: IncomingMessage, res: ServerResponse, url: URL, secondOrigin: string): boolean {
  switch (fault.kind) {
    case '500': sendJson(res, 500, { errors: ['internal server error (test fault)'] }); return true;
    case '401': sendJson(res, 401, { errors: ['unauthorized'] }); return true;
    case '403': sendJson(res, 403, { errors: ['forbidden'] }); return true;
    case '404': sendJson(res, 404, { errors: ['not found'] }); return true;
    case '429': sendJson(res, 429, { errors: ['slow down'] }, { 'Retry-After': String(fault.retryAfter ?? 1) }); return true;
    case 'hang': return true; // never answer; the server's stop() destroys the socket
    case 'slow-body': {
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': '100000' });
      res.write('{"modules":[{"versions":[');
      const timer = setInterval(() => { if (!res.destroyed) res.write(' '); }, 100);
      const stop = () => clearInterval(timer);
      res.on('close', stop);
      req.socket.on('close', stop);
      return true;
    }
    case 'truncated': {
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': '4096' });
      res.write('{"modules":[{"versions":[{"version":"1.0.0"}');
      setTimeout(() => req.socket.destroy(), 20);
      return true;
    }
    case 'invalid-json': {
      const body = '{"modules": [ {"versions": [ {"version": "1.0.0"}, ]';
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
      res.end(body);
      return true;
    }
    case 'wrong-type': {
      const body = '<!doctype html><html><body><h1>Welcome to our corporate proxy</h1></body></html>';
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Content-Length': Buffer.byteLength(body) });
      res.end(body);
      return true;
    }
    case 'redirect-loop': {
      // ping-pong between two spellings of the same path
      const next = new URL(url.href);
      if (next.searchParams.has('loop')) next.searchParams.delete('loop');
      else next.searchParams.set('loop', '1');
      res.writeHead(302, { Location: next.pathname + next.search, 'Content-Length': '0' });
      res.end();
      return true;
    }
    case 'redirect-second-host': {
      res.writeHead(307, { Location: secondOrigin + url.pathname + url.search, 'Content-Length': '0' });
      res.end();
      return true;
    }
    case 'huge-body': {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      let sent = 0;
      res.write('{"pad":"');
      const pump = () => {
        while (sent < HUGE_BODY_BYTES) {
          sent += chunk.length;
          if (!res.write(chunk)) { res.once('drain', pump); return; }
        }
        res.end('"}');
      };
      res.on('error', () => undefined);
      pump();
      return true;
    }
  }
}
