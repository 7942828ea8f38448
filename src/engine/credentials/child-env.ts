// The environment of every process the engine starts (git and, through it, ssh for module
// packages; the credentials helper). A package's repository or a helper is not where registry
// tokens belong: git runs hooks-free but talks to hosts a registry chose, ssh may run a
// ProxyCommand, and a process's environment is readable by anything running as the user.
//
// Left out: OpenTofu's own secrets — TF_TOKEN_* (registry tokens, any case as the engine reads
// them), TF_VAR_* (variable values, commonly passwords), TF_ENCRYPTION (state encryption keys),
// TF_HTTP_PASSWORD / TF_HTTP_* backend credentials — and, for git, the usual credential-shaped
// names of other tools (…_TOKEN, …_SECRET…, …PASSWORD, …_API_KEY, AWS/Azure/Google keys): git runs
// with its credential helpers switched off, so it never uses them.
// Kept: everything else git and ssh need — PATH, HOME, SSH_AUTH_SOCK, locale, proxy variables
// (HTTPS_PROXY may carry user:password; git needs it to reach the host), GIT_* and SSH_* the user set.
//
// 'git-with-helpers' (the ref lookup's `git ls-remote`, git/): git as `tofu init` runs it, with
// the user's credential helpers — and a helper (gh, git-credential-manager, a cloud CLI) may need
// its own tool's variables (GH_TOKEN, AWS_*) to answer. So only OpenTofu's secrets are left out.

/** OpenTofu's credential-bearing variables: never passed to any child process. */
const TOFU_SECRET = /^(TF_TOKEN_|TF_VAR_|TF_HTTP_)|^TF_ENCRYPTION$/i;
/** Names that carry other tools' credentials (for processes that do not need them: git). */
const CREDENTIAL_NAME = /(^|_)(TOKEN|SECRET|SECRETS|PASSWORD|PASSWD|PASSPHRASE|API_?KEY|ACCESS_KEY|PRIVATE_KEY|CLIENT_SECRET|CREDENTIALS?)(_|$)|^AWS_SECRET|^AWS_SESSION|^ARM_CLIENT_SECRET|^GOOGLE_(APPLICATION_)?CREDENTIALS/i;
/** Variables git and ssh read for themselves: kept whatever their name (GIT_ASKPASS is set by the caller). */
const GIT_OWN = /^(GIT_|SSH_)/;

export type ChildKind = 'git' | 'git-with-helpers' | 'credentials-helper';

/**
 * `base` (the engine's environment, default process.env) without credentials, plus `extra`.
 * A credentials helper keeps other tools' variables: it may need them to find the token it
 * answers with (a vault address and its login); git does not, unless it runs the user's credential
 * helpers ('git-with-helpers'), which may need them in the same way.
 */
export function childEnv(kind: ChildKind, base: NodeJS.ProcessEnv = process.env, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(base)) {
    if (value === undefined || TOFU_SECRET.test(name)) continue;
    if (kind === 'git' && !GIT_OWN.test(name) && CREDENTIAL_NAME.test(name)) continue;
    out[name] = value;
  }
  return { ...out, ...extra };
}
