// Each open document parsed once per version (syntax tree, then module calls and provider
// requirements on first use), keyed by its URI. Both adapters keep one; they say only how to
// read a document's key, version, file name and text.
import type { ConfigFile } from '../engine/config/ast';
import { parseConfig } from '../engine/config';
import { collectRefs, DocRefs } from './refs';

/** A document as the features see it. */
export interface DocumentSnapshot {
  /** The document's URI as a string (the cache key). */
  key: string;
  version: number;
  /** File name (the parser's file rules: .tf.json, override files); a path when it has one. */
  fsPath: string;
  getText(): string;
}

export interface ParsedText {
  key: string;
  version: number;
  fsPath: string;
  text: string;
  file: ConfigFile;
}

interface CacheEntry { parsed: ParsedText; refs?: DocRefs }

export class DocumentCache {
  private readonly docs = new Map<string, CacheEntry>();
  /** Parses performed (tests and the bench check the cache works). */
  parseCount = 0;

  private entry(doc: DocumentSnapshot): CacheEntry {
    const hit = this.docs.get(doc.key);
    if (hit && hit.parsed.version === doc.version) return hit;
    const text = doc.getText();
    this.parseCount++;
    const e: CacheEntry = { parsed: { key: doc.key, version: doc.version, fsPath: doc.fsPath, text, file: parseConfig(text, doc.fsPath) } };
    this.docs.set(doc.key, e);
    return e;
  }

  parse(doc: DocumentSnapshot): ParsedText {
    return this.entry(doc).parsed;
  }

  refs(doc: DocumentSnapshot): { parsed: ParsedText; refs: DocRefs } {
    const e = this.entry(doc);
    if (!e.refs) e.refs = collectRefs(e.parsed.file, e.parsed.text);
    return { parsed: e.parsed, refs: e.refs };
  }

  forget(key: string): void {
    this.docs.delete(key);
  }

  clear(): void {
    this.docs.clear();
  }
}

const OURS = /\.(?:tf|tofu)(?:\.json)?$/;

/** Every *.tf, *.tofu, *.tf.json and *.tofu.json file is ours, whatever language id it was given. */
export function isOurFileName(p: string): boolean {
  return OURS.test(p);
}
