// Fetching a registry module version from its download location, which the engine caches like a
// version list: a cached location may have expired since (a signed URL), so one failed fetch asks
// the registry again and tries a location that changed once. One rule for every fetcher (the
// module resolver, the module mirror).
import { untilAborted } from './budget';

/** What the rule needs of the engine (the real Engine, or the module mirror's narrower view of it). */
export interface LocationSource<A> {
  resolveDownloadLocation(a: A, version: string, opts?: { signal?: AbortSignal }): Promise<{ location: string }>;
  forgetDownloadLocation?(a: A, version: string): Promise<void>;
}

/**
 * `fetch(location)` with `location` (the cached answer the caller already has); when it fails,
 * the cached location is forgotten, the registry asked again, and a changed location tried once.
 * Returns what `fetch` returned and the location it came from. A cancelled run asks nothing more.
 */
export async function fetchWithFreshLocation<A, T>(engine: LocationSource<A>, address: A, version: string, location: string,
  fetch: (location: string) => Promise<T>, signal?: AbortSignal): Promise<{ value: T; location: string }> {
  try {
    return { value: await fetch(location), location };
  } catch (err) {
    if (signal?.aborted || !engine.forgetDownloadLocation) throw err;
    await engine.forgetDownloadLocation(address, version);
    const fresh = await untilAborted(engine.resolveDownloadLocation(address, version, { signal }), signal).catch(() => undefined);
    if (!fresh || fresh.location === location) throw err;
    return { value: await fetch(fresh.location), location: fresh.location };
  }
}
