// User information written in an http(s) remote (`https://TOKEN@host/…`,
// `https://user:password@host/…`) kept off every command line git and its helpers run with, which
// every user of the machine can read (ps, /proc/PID/cmdline). A `url.<with>.insteadOf <without>`
// rewrite is not enough: git passes the rewritten URL on to `git remote-https` as an argument. So
// git is given the URL without it and gets the credentials back through its environment (readable
// only by the same user): the user name as `credential.<origin>.username` (GIT_CONFIG_COUNT, after
// any the user set), the password from a credential helper that reads it from a variable — the
// helper's command (`-c credential.helper=…`, last on the command line so nothing the user's
// environment sets comes after it) holds only the variables' names. With a password the user's
// own helpers are switched off for that run, as git skips them when the URL has both: the URL's
// credentials win, and they are never handed to a helper to store. The helper is scoped to the
// URL's origin, so a redirect to another host never gets the password.
import { shownUrl } from '../net/http-errors';

/** Where the credential helper finds the URL's password (set in git's environment only). */
const PASSWORD_VAR = 'TOFU_REGISTRY_GIT_URL_PASSWORD';
const USER_VAR = 'TOFU_REGISTRY_GIT_URL_USERNAME';
/** Answers `get` with the URL's credentials; `store` and `erase` are ignored. Run by git through sh. */
const HELPER = `!f() { test "$1" = get || exit 0; printf 'username=%s\\npassword=%s\\n' "$${USER_VAR}" "$${PASSWORD_VAR}"; }; f`;

export interface GitRemoteArgs {
  /** The remote as git's command line gets it: without user information. */
  argvRemote: string;
  /** `-c` options for git's command line, before the subcommand: credential helpers (no secret in them). */
  config: string[];
  /** Environment for git: the user name's configuration entry (GIT_CONFIG_COUNT/KEY/VALUE) and the helper's variables. */
  env: NodeJS.ProcessEnv;
}

/**
 * `remote` split into what goes on git's command line and what goes into its environment.
 * `userHelpers`: whether git may run the user's credential helpers (otherwise `config` switches
 * them off). `env` is the environment git starts from (its GIT_CONFIG_COUNT is continued).
 */
export function gitRemoteArgs(remote: string, env: NodeJS.ProcessEnv, userHelpers: boolean): GitRemoteArgs {
  const info = userInfo(remote);
  const config = !userHelpers || info?.password !== undefined ? ['-c', 'credential.helper='] : [];
  if (!info) return { argvRemote: remote, config, env: {} };
  if (info.password !== undefined) {
    return { argvRemote: info.clean, config: [...config, '-c', `credential.${info.origin}.helper=${HELPER}`], env: { [USER_VAR]: info.username, [PASSWORD_VAR]: info.password } };
  }
  const n = Number(env.GIT_CONFIG_COUNT) > 0 ? Number(env.GIT_CONFIG_COUNT) : 0;
  return {
    argvRemote: info.clean, config,
    env: { GIT_CONFIG_COUNT: String(n + 1), [`GIT_CONFIG_KEY_${n}`]: `credential.${info.origin}.username`, [`GIT_CONFIG_VALUE_${n}`]: info.username },
  };
}

/** A remote whose user information git could not be given safely (the callers turn it into their own error kind). */
export class InvalidUserInfo extends Error {}

/** The decoded user name and password of an http(s) URL, and the URL without them; undefined when it has none. */
function userInfo(remote: string): { clean: string; origin: string; username: string; password?: string } | undefined {
  let u: URL;
  try { u = new URL(remote); } catch { return undefined; }
  if (!/^https?:$/.test(u.protocol) || (!u.username && !u.password)) return undefined;
  const start = remote.indexOf('//') + 2;
  const at = remote.lastIndexOf('@', authorityEnd(remote, start));
  const clean = remote.slice(0, start) + remote.slice(at + 1);
  const username = decoded(u.username);
  const password = remote.slice(start, at).includes(':') ? decoded(u.password) : undefined;
  // git's credential protocol is line-based (and git itself refuses such URLs)
  if (/[\0\r\n]/.test(username + (password ?? ''))) throw new InvalidUserInfo(`invalid git remote ${shownUrl(remote)}: its user information holds a line break`);
  return { clean, origin: `${u.protocol}//${u.host}`, username, password };
}

/**
 * What of a remote's user information must not appear in a message git printed: the password as
 * written and decoded, and a user name that comes without a password (`https://TOKEN@host`: often
 * a token). git may echo either form.
 */
export function urlSecrets(remote: string): string[] {
  let info;
  try { info = userInfo(remote); } catch { info = undefined; }
  if (!info) return [];
  const u = new URL(remote);
  const out = info.password === undefined ? [u.username, info.username] : [u.password, info.password];
  return [...new Set(out.filter(Boolean))].sort((a, b) => b.length - a.length);
}

/** Where the authority of a URL ends (the first '/', '?' or '#' after `start`). */
function authorityEnd(remote: string, start: number): number {
  const m = /[/?#]/.exec(remote.slice(start));
  return m ? start + m.index : remote.length;
}

/** Percent-decoding as git's url_decode: a malformed sequence stays as written. */
function decoded(s: string): string {
  try { return decodeURIComponent(s); } catch { return s; }
}
