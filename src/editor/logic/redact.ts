// Log hygiene for the "Show log" channel: URLs in log lines keep their host and path (what a user
// needs to debug a registry) but lose anything that works as a credential — user:password in the
// authority, and the values of query parameters that carry signatures or tokens (pre-signed archive
// URLs such as S3's X-Amz-Signature / X-Amz-Credential, GitHub's ?token=, Azure's ?sig=).
const URL_RE = /\bhttps?:\/\/[^\s"'<>`)\]]+/g;
const SECRET_PARAM = /token|sig|signature|secret|password|passwd|credential|auth|key|session|code|^x-amz-/i;

export function redactUrls(message: string): string {
  return message.replace(URL_RE, (match) => {
    const raw = match.replace(/[.,;:!?]+$/, ''); // sentence punctuation after a URL is not part of it
    const tail = match.slice(raw.length);
    let u: URL;
    try {
      u = new URL(raw);
    } catch {
      return match;
    }
    let changed = false;
    if (u.username || u.password) {
      u.username = '***';
      u.password = '';
      changed = true;
    }
    for (const k of [...new Set(u.searchParams.keys())]) {
      if (SECRET_PARAM.test(k)) {
        u.searchParams.set(k, '***');
        changed = true;
      }
    }
    return changed ? u.href.replace(/%2A%2A%2A/g, '***') + tail : match;
  });
}
