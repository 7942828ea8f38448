// How many requests a test server answers at once, counted on the server: archives (*.zip) and the
// rest apart. The concurrency tests of the mirror and the lock engine read the maxima.
import type { TestHttpsServer } from './https-server';

export interface InFlight {
  /** Requests being answered now. */
  archives: number;
  small: number;
  /** The most seen at once since the last reset(). */
  maxArchives: number;
  maxSmall: number;
  maxTotal: number;
  reset(): void;
}

/**
 * Holds every request `holdMs` (so that requests sent at once overlap on the server), then passes
 * it on to the routes added before, counting what is in flight.
 */
export function countInFlight(server: TestHttpsServer, holdMs = 30): InFlight {
  const n: InFlight = {
    archives: 0, small: 0, maxArchives: 0, maxSmall: 0, maxTotal: 0,
    reset() { Object.assign(n, { maxArchives: 0, maxSmall: 0, maxTotal: 0 }); },
  };
  server.route('/', async (_req, res, url) => {
    const kind = url.pathname.endsWith('.zip') ? 'archives' : 'small';
    n[kind]++;
    n.maxArchives = Math.max(n.maxArchives, n.archives);
    n.maxSmall = Math.max(n.maxSmall, n.small);
    n.maxTotal = Math.max(n.maxTotal, n.archives + n.small);
    res.once('close', () => { n[kind]--; });
    await new Promise((r) => setTimeout(r, holdMs));
    return false;
  });
  return n;
}
