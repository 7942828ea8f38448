// Hover on a provider block of `.terraform.lock.hcl` (Markdown). Pure (no vscode).
import type { LockedProvider, ProviderCoverage, RequiredProviderInfo } from '../engine/lock';
import { canonicalConstraints } from '../engine/lock';
import { describeConstraint, selectVersions } from '../engine/versions';
import { code, describeError, esc, NO_NETWORK, Outcome } from './hover';

export interface LockHoverInput {
  entry: LockedProvider;
  /** What the configuration requires of it (undefined: not required, or not known). */
  required?: RequiredProviderInfo;
  /** False when some module could not be read (then "not required" is not certain). */
  requirementsComplete: boolean;
  coverage?: ProviderCoverage;
  /** The team's platforms (tofuRegistry.lock.platforms). */
  platforms: string[];
  versions: Outcome<string[]>;
  networkAllowed: boolean;
}

export function lockHover(i: LockHoverInput): string {
  const e = i.entry;
  const lines = [`**Provider lock** ${code(e.address)}`, ''];
  lines.push(`- Locked version: **${esc(e.version ?? '(missing)')}**`);
  if (e.constraints) lines.push(`- Constraints recorded: ${code(e.constraints)} (${esc(describeConstraint(e.constraints, 'provider'))})`);
  if (i.required) {
    let wanted = '';
    try { wanted = canonicalConstraints(i.required.constraints); } catch (err) { wanted = describeError(err); }
    const ok = !e.version || selectVersions([e.version], wanted || null, 'provider').selected === e.version;
    const mods = [...new Set(i.required.origins.map((o) => (o.module ? `module.${o.module}` : 'root module')))].join(', ');
    lines.push(`- Configuration requires: ${wanted ? code(wanted) : 'any version'} (${esc(mods)})${ok ? '' : ` — $(error) the locked version does not match: \`tofu init\` fails until the lock is updated`}`);
  } else if (i.requirementsComplete) {
    lines.push('- $(warning) No longer required by the configuration: `tofu init` will remove it.');
  }
  if (!i.networkAllowed) lines.push(`- ${NO_NETWORK}`);
  else if (i.versions && 'value' in i.versions) {
    const constraint = i.required ? safeConstraints(i.required.constraints) : null;
    const sel = selectVersions(i.versions.value, constraint, 'provider');
    const locked = sel.newest !== null && sel.newest === e.version ? ' (the locked one)' : '';
    const matching = sel.selected && sel.selected !== sel.newest ? `; newest matching the configuration: ${esc(sel.selected)}` : '';
    lines.push(`- Newest version: **${esc(sel.newest ?? 'none')}**${locked}${matching}`);
  } else if (i.versions && 'error' in i.versions) {
    lines.push(`- Newest version: unknown (${esc(describeError(i.versions.error))})`);
  }
  const h1 = e.hashes.filter((h) => h.startsWith('h1:')).length;
  const zh = e.hashes.filter((h) => h.startsWith('zh:')).length;
  lines.push(`- Hashes: ${h1} \`h1:\`, ${zh} \`zh:\``);
  const c = i.coverage;
  if (c) {
    lines.push(`- \`h1:\` covers: ${c.h1Platforms.length ? esc(c.h1Platforms.join(', ')) : 'no known platform'}`);
    if (c.missing.length) lines.push(`- $(warning) No \`h1:\` for team platform${c.missing.length > 1 ? 's' : ''} ${esc(c.missing.join(', '))}: \`tofu init\` there changes the lock file`);
    if (c.unknown.length) lines.push(`- Not known (no cache entry, no \`packages\` from the registry): ${esc(c.unknown.join(', '))}`);
    if (c.zhPlatforms.length) lines.push(`- \`zh:\` covers (SHA256SUMS): ${esc(c.zhPlatforms.join(', '))}`);
  }
  lines.push('', `Team platforms (\`tofuRegistry.lock.platforms\`): ${esc(i.platforms.join(', '))}`);
  return lines.join('\n');
}

function safeConstraints(list: string[]): string | null {
  try {
    return canonicalConstraints(list) || null;
  } catch {
    return null;
  }
}
