// A YAML file of Kubernetes objects with `{{ … }}` holes. The holes are swapped for inert
// placeholders BEFORE the YAML is parsed and filled in AFTER, inside the parsed strings: a value
// such as an owner name with `: ` or a newline can never change the YAML's structure. Filled-in
// values are always strings.
import { randomBytes } from 'node:crypto';
import type { KubeObject } from '@kfx/kube-runtime';
import { parseAllDocuments } from 'yaml';
import type { KindRef } from '../reconciler.js';
import type { Expression } from './expression.js';
import {
  compileText,
  renderExpression,
  TemplateError,
  type TemplateValues,
} from './template-text.js';

export interface CompiledTemplate {
  /** Where it came from, for messages: a file path or an inline name. */
  source: string;
  kinds: KindRef[];
  documents: Record<string, unknown>[];
  expressions: Expression[];
  placeholder: RegExp;
}

const isMapping = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

export function compileTemplate(source: string, content: string): CompiledTemplate {
  const where = `template ${source}`;
  const compiled = compileText(content, where);
  const nonce = randomBytes(6).toString('hex');
  const expressions: Expression[] = [];
  let text = '';
  for (const part of compiled.parts) {
    if (typeof part === 'string') {
      text += part;
    } else {
      text += `kfxtpl${nonce}n${expressions.length}e`;
      expressions.push(part);
    }
  }
  const documents: Record<string, unknown>[] = [];
  const kinds: KindRef[] = [];
  for (const document of parseAllDocuments(text)) {
    const error = document.errors[0];
    if (error) {
      const line = error.linePos?.[0].line;
      throw new TemplateError(
        `${where}${line ? `, line ${line}` : ''}: not valid YAML: ${error.message.split('\n')[0] ?? ''}`,
      );
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
    if (!kinds.some((k) => k.apiVersion === apiVersion && k.kind === kind)) {
      kinds.push({ apiVersion, kind });
    }
    documents.push(object);
  }
  if (documents.length === 0) throw new TemplateError(`${where}: holds no object`);
  return {
    source,
    kinds,
    documents,
    expressions,
    placeholder: new RegExp(`kfxtpl${nonce}n(\\d+)e`, 'g'),
  };
}

/** The template's objects for one Profile; throws a TemplateError naming what is missing. */
export function renderTemplate(template: CompiledTemplate, values: TemplateValues): KubeObject[] {
  const fill = (text: string) =>
    text.replace(template.placeholder, (_match, index: string) => {
      const expression = template.expressions[Number(index)];
      return expression ? renderExpression(expression, values) : '';
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
    return template.documents.map((document) => walk(document) as KubeObject);
  } catch (error) {
    if (error instanceof TemplateError) {
      throw new TemplateError(`template ${template.source}: ${error.message}`);
    }
    throw error;
  }
}
