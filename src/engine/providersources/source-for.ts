// Which source a run copies provider packages from: a network mirror when asked (`--from-mirror`,
// `lock --net-mirror`), else the origin registries — like `tofu providers mirror`, even when the
// CLI configuration routes `tofu init` through a mirror. mirror, mirror --oci and lock share it.
import type { ProviderAddress } from '../addresses/provider-source';
import { NetworkMirrorClient } from '../registry/network-mirror';
import { ArchiveSource, MirrorSource, RegistryLike, RegistrySource } from './sources';

export interface MirrorEngine extends RegistryLike {
  /** The origin registry's versions, ignoring the CLI configuration's provider_installation. */
  listOriginProviderVersions?(addr: ProviderAddress): Promise<unknown>;
  http: RegistryLike['http'] & {
    getJson(url: string, opts?: { maxBytes?: number; timeoutMs?: number; auth?: boolean; signal?: AbortSignal }): Promise<{ url: string; json: unknown }>;
  };
}

export function sourceFor(engine: MirrorEngine, fromMirror?: string): ArchiveSource {
  if (fromMirror) return new MirrorSource(new NetworkMirrorClient(fromMirror, engine.http), engine.http);
  // Like `tofu providers mirror`: copy from the origin registries even when the CLI configuration
  // routes `tofu init` through a mirror.
  const origin = engine.listOriginProviderVersions;
  return new RegistrySource(origin ? {
    listProviderVersions: (addr) => origin.call(engine, addr),
    getProviderPackage: (...args) => engine.getProviderPackage(...args),
    http: engine.http,
  } : engine);
}
