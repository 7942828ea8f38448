// One quick fix or lens of a module or provider reference, as both editor adapters convert it. Its
// own file so that the fixes of each source kind (fixes.ts, oci.ts, git.ts) share the shape
// without importing one another.
import type { Range } from '../engine/config/ast';

export type FixKind = 'update-constraint' | 'add-version' | 'pin-digest' | 'update-tag' | 'update-ref' | 'pin-commit' | 'pin-tag';

export interface Fix<K extends FixKind = FixKind> {
  kind: K;
  title: string;
  /** Short form for a CodeLens. */
  lens: string;
  range: Range;
  newText: string;
  /** The version (oci://: the tag or digest; git: the ref) the fix makes tofu init select. */
  version: string;
}
