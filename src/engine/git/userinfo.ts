// User information written in an http(s) remote (`https://TOKEN@host/…`,
// `https://user:password@host/…`) kept off every command line git and its helpers run with, which
// every user of the machine can read (ps, /proc/PID/cmdline). A `url.<with>.insteadOf <without>`
// rewrite is not enough: git passes the rewritten URL on to `git remote-https` as an argument. So
// git is given the URL without it, and gets it back through its configuration in the environment
// (GIT_CONFIG_COUNT, after any the user set; a process's environment is readable only by its own
// user): the user name as `credential.<origin>.username`, the password from a credential helper
// that reads it from a variable (its command line holds only the variable's name). With a
// password the user's own helpers are switched off for that run, as git skips them when the URL
// has both: the URL's credentials win, and they are never handed to a helper to store.
import { shownUrl } from '../net/http-errors';

/** Where the credential helper finds the URL's password (set in git's environment only). */
const PASSWORD_VAR = 'TOFU_REGISTRY_GIT_URL_PASSWORD';
const USER_VAR = 'TOFU_REGISTRY_GIT_URL_USERNAME';
/** Answers `get` with the URL's credentials; `store` and `erase` are ignored. Run by git through sh. */
const HELPER = `!f() { test "$1" = get || exit 0; printf 'username=%s\\npassword=%s\\n' "$${USER_VAR}" "$${PASSWORD_VAR}"; }; f`;

export interface GitRemoteArgs {
  /** The remote as git's command line gets it: without user information. */
  argvRemote: string;
  /** Environment for git: configuration entries (GIT_CONFIG_COUNT/KEY/VALUE) and the helper's variables. */
  env: NodeJS.ProcessEnv;
}

/**
 * `remote` split into what goes on git's command line and what goes into its environment.
 * `userHelpers`: whether git may run the user's credential helpers (otherwise they are switched
 * off here, in the environment: a `-c credential.helper=` argument would come after these entries
 * and switch the URL's helper off too). `env` is the environment git starts from (its
 * GIT_CONFIG_COUNT is continued, not replaced).
 */
export function gitRemoteArgs(remote: string, env: NodeJS.ProcessEnv, userHelpers: boolean): GitRemoteArgs {
  const config: Array<[string, string]> = userHelpers ? [] : [['credential.helper', '']];
  let argvRemote = remote;
  const extra: NodeJS.ProcessEnv = {};
  const info = userInfo(remote);
  if (info) {
    argvRemote = info.clean;
    if (info.password === undefined) config.push([`credential.${info.origin}.username`, info.username]);
    else {
      if (userHelpers) config.push(['credential.helper', '']);
      config.push(['credential.helper', HELPER]);
      extra[USER_VAR] = info.username;
      extra[PASSWORD_VAR] = info.password;
    }
  }
  const n = Number(env.GIT_CONFIG_COUNT) > 0 ? Number(env.GIT_CONFIG_COUNT) : 0;
  if (config.length) {
    extra.GIT_CONFIG_COUNT = String(n + config.length);
    config.forEach(([k, v], i) => { extra[`GIT_CONFIG_KEY_${n + i}`] = k; extra[`GIT_CONFIG_VALUE_${n + i}`] = v; });
  }
  return { argvRemote, env: extra };
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
