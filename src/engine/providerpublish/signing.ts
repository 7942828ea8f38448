// The signature chain `tofu init` verifies for a registry provider: SHA256SUMS, its detached
// OpenPGP signature, and the public key the download documents list in signing_keys. The key comes
// from an armored public key, or is the public part of an armored private key (which can also sign
// SHA256SUMS the way `gpg --detach-sign` does: a binary detached signature).
import type * as OpenPgp from 'openpgp';
import { loadOpenPgp, SigningKey, verifyDetachedSignature } from '../providerpkg/signature';
import { ProviderPublishError, Release } from './release';

export interface KeyInput {
  /** An armored public key (one or more keys). */
  publicKey?: string;
  /** An armored private key. */
  signingKey?: string;
  /** Its passphrase, when it is encrypted. */
  passphrase?: string;
  /** Where the passphrase comes from, for messages (an environment variable's name). */
  passphraseSource?: string;
}

export interface PublishKeys {
  /** What the download documents list (key_id + ascii_armor), armored the same way every run. */
  keys: SigningKey[];
  /** Signs a document (binary detached signature) — with a private key only. */
  sign?: (document: Uint8Array) => Promise<Buffer>;
}

/** Reads the keys; throws ProviderPublishError with the reason. */
export async function readKeys(input: KeyInput): Promise<PublishKeys> {
  if (input.publicKey !== undefined && input.signingKey !== undefined) throw new ProviderPublishError('give either a public key or a signing key, not both');
  const openpgp = await loadOpenPgp();
  if (input.signingKey !== undefined) {
    let key: OpenPgp.PrivateKey;
    try {
      key = await openpgp.readPrivateKey({ armoredKey: input.signingKey });
    } catch (err) {
      throw new ProviderPublishError(`the signing key is not an armored OpenPGP private key (${(err as Error).message})`);
    }
    if (!key.isDecrypted()) {
      if (!input.passphrase) throw new ProviderPublishError(`the signing key is protected by a passphrase; set it in ${input.passphraseSource ?? 'the passphrase variable'}`);
      try {
        key = await openpgp.decryptKey({ privateKey: key, passphrase: input.passphrase });
      } catch (err) {
        throw new ProviderPublishError(`cannot unlock the signing key with the passphrase from ${input.passphraseSource ?? 'the passphrase variable'} (${(err as Error).message})`);
      }
    }
    const signingKey = key;
    return {
      keys: [publicOf(key.toPublic())],
      sign: async (document) => {
        const message = await openpgp.createMessage({ binary: document });
        return Buffer.from(await openpgp.sign({ message, signingKeys: signingKey, detached: true, format: 'binary' }) as Uint8Array);
      },
    };
  }
  if (input.publicKey !== undefined) {
    let keys: OpenPgp.Key[];
    try {
      keys = await openpgp.readKeys({ armoredKeys: input.publicKey });
    } catch (err) {
      throw new ProviderPublishError(`the public key is not an armored OpenPGP public key (${(err as Error).message})`);
    }
    return { keys: keys.map((k) => publicOf(k.toPublic())) };
  }
  return { keys: [] };
}

function publicOf(key: OpenPgp.PublicKey): SigningKey {
  return { keyId: key.getKeyID().toHex().toUpperCase(), asciiArmor: key.armor() };
}

/**
 * The signature to publish for the release's SHA256SUMS: the release's own (checked against the
 * keys), else one the site already has for the same SHA256SUMS that verifies (a re-run writes
 * nothing, though OpenPGP signatures carry a time), else a new one from the signing key.
 */
export async function releaseSignature(release: Release, keys: PublishKeys, published?: Buffer): Promise<Buffer> {
  const check = async (sig: Buffer, what: string) => {
    const r = await verifyDetachedSignature(release.sums.bytes, sig, keys.keys);
    if (!r.ok) throw new ProviderPublishError(`${what} does not verify with the published key (${r.message}); tofu init would refuse every package of this version (nothing was written)`);
  };
  if (!keys.keys.length) {
    throw new ProviderPublishError('no key to publish: give --public-key FILE (the key that signed SHA256SUMS) or --signing-key FILE; tofu init refuses a registry provider without signing keys');
  }
  if (release.signature) {
    await check(release.signature.bytes, release.signature.filename);
    return release.signature.bytes;
  }
  if (published && (await verifyDetachedSignature(release.sums.bytes, published, keys.keys)).ok) return published;
  if (!keys.sign) {
    throw new ProviderPublishError(`${release.sums.filename} has no signature (${release.sums.filename}.sig) and there is no --signing-key to make one; tofu init refuses unsigned registry providers`);
  }
  const sig = await keys.sign(release.sums.bytes);
  await check(sig, 'the new signature');
  return sig;
}
