// VS Code's proxy settings as the engine's plain options. Pure (no vscode).

/**
 * `http.noProxy` (an array of hosts in NO_PROXY syntax: "host", ".domain", "host:port", "*") as one
 * comma-separated list for the engine, which adds it to NO_PROXY/no_proxy. Entries may themselves
 * hold comma-separated hosts; blanks and entries with spaces are dropped.
 */
export function noProxyList(value: unknown): string {
  const list = Array.isArray(value) ? value : typeof value === 'string' ? [value] : [];
  return list.flatMap((h) => (typeof h === 'string' ? h.split(',') : []))
    .map((h) => h.trim()).filter((h) => h && !/\s/.test(h)).join(',');
}
