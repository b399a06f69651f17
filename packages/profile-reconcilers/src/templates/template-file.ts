// A YAML file of Kubernetes objects with `{{ … }}` holes and control lines (template-blocks.ts).
// The holes are swapped for inert placeholders BEFORE the YAML is parsed and filled in AFTER,
// inside the parsed strings: a value such as an owner name with `: ` or a newline can never
// change the YAML's structure, and filled-in values are always strings. Control lines only
// choose and repeat lines of the template itself. At load time the template is expanded with
// every branch taken (loops once) and with none (loops empty); both must be valid objects, and
// their kinds are the kinds the template makes.
import { randomBytes } from 'node:crypto';
import type { KubeObject } from '@kfx/kube-runtime/client';
import { parseAllDocuments } from 'yaml';
import type { KindRef } from '../reconciler.js';
import { renderExpression } from './evaluate.js';
import { baseScope, type Scope, type TemplateValues } from './scope.js';
import {
  compileBlocks,
  EVERY_BRANCH,
  expand,
  forProfile,
  hasControl,
  NO_BRANCH,
  type Block,
  type Expansion,
} from './template-blocks.js';
import { TemplateError } from './template-error.js';

export interface CompiledTemplate {
  /** Where it came from, for messages: a file path or an inline name. */
  source: string;
  kinds: KindRef[];
  /** Namespaces its objects name literally (no hole): they live there for every Profile. */
  namespaces: string[];
  blocks: Block[];
  /** Names the template uses (`contributors`, `values.userIdHeader`, …). */
  uses: ReadonlySet<string>;
  nonce: string;
  placeholder: RegExp;
  /** Parsed documents by expanded text: Profiles whose expansion is the same share one parse. */
  parsed: Map<string, Record<string, unknown>[]>;
  /** The expansion when the template has no control lines (the same for every Profile). */
  fixed: Expansion | undefined;
}

/** Distinct expansions kept parsed per template (one per number of contributors, typically). */
const PARSED_KEPT = 64;

const isMapping = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The objects of an expansion, checked; errors name the template line. */
function parseObjects(
  expansion: Expansion,
  where: string,
  nonce: string,
): Record<string, unknown>[] {
  const documents: Record<string, unknown>[] = [];
  for (const document of parseAllDocuments(expansion.text)) {
    const error = document.errors[0];
    if (error) {
      // Positions are in the expanded text: name the template's line, not the expansion's.
      const expanded = error.linePos?.[0].line;
      const line =
        expanded === undefined
          ? undefined
          : expansion.lines[Math.min(expanded, expansion.lines.length) - 1];
      const reason = (error.message.split('\n')[0] ?? '').replace(
        / at line \d+, column \d+:?$/,
        '',
      );
      throw new TemplateError(`${where}${line ? `, line ${line}` : ''}: not valid YAML: ${reason}`);
    }
    const object: unknown = document.toJS();
    if (object === null || object === undefined) continue;
    const index = documents.length + 1;
    if (!isMapping(object)) throw new TemplateError(`${where}, document ${index}: not a mapping`);
    const { apiVersion, kind } = object;
    const metadata = isMapping(object.metadata) ? object.metadata : {};
    if (typeof apiVersion !== 'string' || typeof kind !== 'string' || !metadata.name) {
      throw new TemplateError(
        `${where}, document ${index}: every object needs apiVersion, kind and metadata.name`,
      );
    }
    if (`${apiVersion}${kind}`.includes(`kfxtpl${nonce}`)) {
      throw new TemplateError(
        `${where}, document ${index}: apiVersion and kind cannot be templated (kfx must know them to watch the objects)`,
      );
    }
    documents.push(object);
  }
  return documents;
}

const literalNamespaces = (documents: Record<string, unknown>[], nonce: string): string[] => [
  ...new Set(
    documents.flatMap((document) => {
      const namespace = isMapping(document.metadata) ? document.metadata.namespace : undefined;
      return typeof namespace === 'string' && !namespace.includes(`kfxtpl${nonce}`)
        ? [namespace]
        : [];
    }),
  ),
];

const kindsOf = (documents: Record<string, unknown>[], into: KindRef[]) => {
  for (const { apiVersion, kind } of documents as unknown as KindRef[]) {
    if (!into.some((k) => k.apiVersion === apiVersion && k.kind === kind)) {
      into.push({ apiVersion, kind });
    }
  }
};

export function compileTemplate(
  source: string,
  content: string,
  scope: Scope = baseScope(),
): CompiledTemplate {
  const where = `template ${source}`;
  const own: Scope = { ...scope, used: new Set() };
  const blocks = compileBlocks(content, where, own);
  const nonce = randomBytes(6).toString('hex');
  const placeholder = (index: number) => `kfxtpl${nonce}n${index}e`;
  const every = expand(blocks, placeholder, EVERY_BRANCH);
  const kinds: KindRef[] = [];
  const documents = parseObjects(every, where, nonce);
  kindsOf(documents, kinds);
  if (documents.length === 0) throw new TemplateError(`${where}: holds no object`);
  const control = hasControl(blocks);
  if (control) kindsOf(parseObjects(expand(blocks, placeholder, NO_BRANCH), where, nonce), kinds);
  return {
    source,
    kinds,
    namespaces: literalNamespaces(documents, nonce),
    blocks,
    uses: own.used,
    nonce,
    placeholder: new RegExp(`kfxtpl${nonce}n(\\d+)e`, 'g'),
    parsed: new Map([[every.text, documents]]),
    fixed: control ? undefined : every,
  };
}

/** The template's objects for one Profile; throws a TemplateError naming what is missing. */
export function renderTemplate(template: CompiledTemplate, values: TemplateValues): KubeObject[] {
  const where = `template ${template.source}`;
  const expansion =
    template.fixed ??
    expand(template.blocks, (i) => `kfxtpl${template.nonce}n${i}e`, forProfile(values));
  let documents = template.parsed.get(expansion.text);
  if (!documents) {
    documents = parseObjects(expansion, `${where} for ${values.subject}`, template.nonce);
    for (const document of documents) {
      const { apiVersion, kind } = document as unknown as KindRef;
      if (!template.kinds.some((k) => k.apiVersion === apiVersion && k.kind === kind)) {
        throw new TemplateError(
          `${where}: ${kind} (${apiVersion}) appears only for some Profiles; kfx watches the kinds a template makes with every {{ if }} true or every one false`,
        );
      }
    }
    if (template.parsed.size >= PARSED_KEPT) {
      const oldest = template.parsed.keys().next().value;
      if (oldest !== undefined) template.parsed.delete(oldest);
    }
    template.parsed.set(expansion.text, documents);
  }
  const fill = (text: string) =>
    text.replace(template.placeholder, (_match, index: string) => {
      const hole = expansion.holes[Number(index)];
      return hole ? renderExpression(hole.expression, values, hole.env) : '';
    });
  const walk = (value: unknown): unknown => {
    if (typeof value === 'string') return fill(value);
    if (Array.isArray(value)) return value.map(walk);
    if (isMapping(value)) {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [fill(k), walk(v)]));
    }
    return value;
  };
  try {
    return documents.map((document) => walk(document) as KubeObject);
  } catch (error) {
    if (error instanceof TemplateError) throw new TemplateError(`${where}: ${error.message}`);
    throw error;
  }
}
