// Type constraints and module inputs: the type diagnostics of a document, hovers on variable types,
// labels, `var.NAME`, module arguments and `module.NAME.OUTPUT`, and completion of module input
// names and outputs. Plain data (no editor API) over src/engine/modules and src/engine/types; the
// adapters schedule checks and convert the answers.
import * as path from 'node:path';
import type { Engine } from '../engine/engine';
import type { Range } from '../engine/config/ast';
import { extractFile, FileSummary, ModuleCall } from '../engine/config/extract';
import { locateCursor, rangeContains } from '../engine/config/locate';
import { isOverrideFile } from '../engine/config/files';
import { analyzeVariable, variableReferenceAt, variablesOfDirectory } from '../engine/modulepkg/variables';
import { checkFile, callSource } from '../engine/modules/check';
import { inputCursor, moduleInputCompletions, typeHoverMarkdown, variableDeclMarkdown, variableMarkdown } from '../engine/modules/inputs';
import { ModuleResolver, ResolvedModule } from '../engine/modulepkg/resolve';
import { moduleCallsOfDirectory, outputCompletionContext, outputMarkdown, outputReferenceAt } from '../engine/modulepkg/outputs';
import type { FeatureContext } from './context';
import type { FeatureCompletion } from './completion';
import type { FeatureHover } from './hover';
import type { ParsedText } from './documents';

/** How long hover/completion wait for a module to be fetched before giving up. */
export const INTERACTIVE_WAIT_MS = 8000;

export interface TypeDiagnostic {
  range: Range;
  message: string;
  severity: 'error' | 'warning';
}

/** The source of type diagnostics, as both adapters label them. */
export const TYPES_SOURCE = 'tofu-registry types';

export class ModuleTypes {
  private resolverFor?: Engine;
  private resolverRef?: ModuleResolver;
  private readonly logged = new Set<string>();

  constructor(private readonly ctx: Pick<FeatureContext, 'engine' | 'cacheDir' | 'networkAllowed' | 'log'>) {}

  /** One resolver per engine instance (the engine is replaced when settings change). */
  get resolver(): ModuleResolver {
    if (!this.resolverRef || this.resolverFor !== this.ctx.engine) {
      this.resolverFor = this.ctx.engine;
      this.resolverRef = new ModuleResolver({ engine: this.ctx.engine, cacheDir: this.ctx.cacheDir, networkAllowed: () => this.ctx.networkAllowed() });
    }
    return this.resolverRef;
  }

  private summary(doc: ParsedText): FileSummary {
    return extractFile(doc.file, doc.text);
  }

  /** The type diagnostics of a document. A module that cannot be loaded is not a type error: it is logged once. */
  async check(doc: ParsedText): Promise<TypeDiagnostic[]> {
    const r = await checkFile({ path: doc.fsPath, text: doc.text, syntax: doc.file.syntax, summary: this.summary(doc), file: doc.file }, this.resolver, (call, err) => {
      const line = `inputs of module "${call.name}" not checked: ${err instanceof Error ? err.message : String(err)}`;
      if (this.logged.has(line)) return;
      if (this.logged.size > 500) this.logged.clear();
      this.logged.add(line);
      this.ctx.log.info(line);
    });
    return r.diagnostics.map((d) => ({ range: d.range, message: d.message, severity: d.severity === 'error' ? 'error' : 'warning' }));
  }

  /** The called module of a module block, or undefined (logged) when it cannot be loaded in time. */
  async module(doc: ParsedText, call: ModuleCall, waitMs = INTERACTIVE_WAIT_MS, signal?: AbortSignal): Promise<ResolvedModule | undefined> {
    const source = callSource(call);
    if (!source) return undefined;
    const req = { callerDir: path.dirname(doc.fsPath), name: call.name, source, version: call.version?.literal ?? null, signal };
    let timer: NodeJS.Timeout | undefined;
    try {
      const timeout = new Promise<undefined>((resolve) => { timer = setTimeout(() => resolve(undefined), waitMs); });
      return await Promise.race([this.resolver.resolve(req), timeout]);
    } catch (err) {
      this.ctx.log.info(`module "${call.name}" (${source}): ${err instanceof Error ? err.message : String(err)}`);
      return undefined;
    } finally {
      clearTimeout(timer);
    }
  }

  /** `signal`: the request was cancelled — the module fetches it started stop. */
  async hover(doc: ParsedText, pos: { line: number; character: number }, waitMs = INTERACTIVE_WAIT_MS, signal?: AbortSignal): Promise<FeatureHover | undefined> {
    const ref = variableReferenceAt(doc.file, pos.line, pos.character);
    if (ref) return this.referenceHover(doc, ref);
    const out = outputReferenceAt(doc.file, pos.line, pos.character);
    if (out) {
      const o = (await this.calledModule(doc, out.module, waitMs, signal))?.iface.outputs.find((x) => x.name === out.output);
      return o && { markdown: outputMarkdown(out.module, o), range: out.range };
    }
    const summary = this.summary(doc);
    const ctx = locateCursor(summary, pos.line, pos.character, doc.text);
    if (ctx.variable) {
      const decl = ctx.variable;
      const { variable } = analyzeVariable(decl, doc.text, doc.fsPath, doc.file.syntax);
      if (decl.type && rangeContains(decl.type.range, pos.line, pos.character)) return { markdown: typeHoverMarkdown(variable), range: decl.type.range };
      const label = decl.block.labels[0];
      const onHeader = rangeContains(decl.block.typeRange, pos.line, pos.character) || (label && rangeContains(label.range, pos.line, pos.character));
      if (onHeader) return { markdown: variableDeclMarkdown(variable, decl), range: label?.range ?? decl.block.typeRange };
      return undefined;
    }
    const cur = inputCursor(summary.modules, pos, doc.text);
    if (cur?.kind !== 'argument-name') return undefined;
    const mod = await this.module(doc, cur.call, waitMs, signal);
    const v = mod?.iface.variables.find((x) => x.name === cur.name);
    if (!v) return undefined;
    return { markdown: `**Input** of module \`${cur.call.name}\`\n\n${variableMarkdown(v)}`, range: cur.range };
  }

  /** Hover on `var.NAME`: the variable as declared in this file's directory (this document's text included). */
  private async referenceHover(doc: ParsedText, ref: { name: string; range: Range }): Promise<FeatureHover | undefined> {
    const current = { path: doc.fsPath, text: doc.text, file: doc.file, summary: this.summary(doc), override: isOverrideFile(doc.fsPath) };
    const v = (await variablesOfDirectory(current)).variables.find((x) => x.name === ref.name);
    if (!v) return undefined;
    return { markdown: `**Variable** \`${v.name}\`\n\n${variableMarkdown(v)}`, range: ref.range };
  }

  /** The called module of `module.NAME` from this document's directory (any file of it). */
  private async calledModule(doc: ParsedText, name: string, waitMs: number, signal?: AbortSignal): Promise<ResolvedModule | undefined> {
    const calls = await moduleCallsOfDirectory({ path: doc.fsPath, calls: this.summary(doc).modules });
    const call = calls.find((c) => c.name === name);
    return call && this.module(doc, call, waitMs, signal);
  }

  /** Completion of module input names (in a module block) and outputs (after `module.NAME.`). */
  async complete(doc: ParsedText, pos: { line: number; character: number }, waitMs = INTERACTIVE_WAIT_MS, signal?: AbortSignal): Promise<FeatureCompletion[] | undefined> {
    const lineStart = lineOffset(doc.text, pos.line);
    const outputs = outputCompletionContext(doc.text.slice(lineStart, lineStart + pos.character));
    if (outputs) {
      const mod = await this.calledModule(doc, outputs.module, waitMs, signal);
      if (!mod) return undefined;
      const range = { start: { line: pos.line, character: pos.character - outputs.prefix.length }, end: pos };
      return mod.iface.outputs.map((o): FeatureCompletion => ({
        label: o.name, description: o.sensitive ? 'sensitive' : undefined, kind: 'property', detail: `output of module "${outputs.module}"`,
        documentation: outputMarkdown(outputs.module, o), range, sortText: `0_${o.name}`,
      }));
    }
    const cur = inputCursor(this.summary(doc).modules, pos, doc.text);
    if (!cur || cur.kind === 'argument-value') return undefined;
    const mod = await this.module(doc, cur.call, waitMs, signal);
    if (!mod) return undefined;
    // When completing over an existing (half-typed) name, that name does not count as set.
    const call = cur.kind === 'argument-name' ? { ...cur.call, arguments: cur.call.arguments.filter((a) => a.name !== cur.name) } : cur.call;
    return moduleInputCompletions(call, mod.iface).map((c): FeatureCompletion => ({
      label: c.name, description: c.type, kind: 'field', detail: c.detail, documentation: c.documentation, sortText: c.sortText,
      range: cur.range, insertText: cur.kind === 'argument-name' ? c.name : c.snippet, snippet: cur.kind !== 'argument-name', preselect: c.required,
    }));
  }
}

/** Offset of the start of a line (0-based) in `text`. */
function lineOffset(text: string, line: number): number {
  let off = 0;
  for (let l = 0; l < line; l++) {
    const nl = text.indexOf('\n', off);
    if (nl < 0) return text.length;
    off = nl + 1;
  }
  return off;
}
