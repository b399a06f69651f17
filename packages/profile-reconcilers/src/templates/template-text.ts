// Text with `{{ expression }}` holes: compiled once (every variable checked, errors naming the
// file and line), rendered per Profile. A variable with no value and no `| default` is an error
// for that Profile only.
import type { Profile } from '../profile.js';
import { ExpressionError, parseExpression, type Expression } from './expression.js';

export class TemplateError extends Error {
  override name = 'TemplateError';
}

export type TemplatePart = string | Expression;

export interface CompiledText {
  parts: TemplatePart[];
}

/** What the variables hold for one Profile. */
export interface TemplateValues {
  scalars: Record<string, string | undefined>;
  maps: Record<string, Readonly<Record<string, string>>>;
  /** For messages: `Profile team-a`. */
  subject: string;
}

export function templateValues(profile: Profile): TemplateValues {
  const meta = profile.metadata ?? {};
  const owner = profile.spec?.owner;
  return {
    scalars: {
      'profile.name': meta.name,
      'profile.namespace': meta.name,
      'profile.uid': meta.uid,
      'owner.name': owner?.name,
      'owner.kind': owner?.kind,
    },
    maps: { 'profile.labels': meta.labels ?? {}, 'profile.annotations': meta.annotations ?? {} },
    subject: `Profile ${meta.name ?? '(no name)'}`,
  };
}

const HOLE = /\{\{([\s\S]*?)\}\}/g;

/** `where` names the source in errors, e.g. `template authz.yaml`. */
export function compileText(text: string, where: string): CompiledText {
  const parts: TemplatePart[] = [];
  let last = 0;
  for (const match of text.matchAll(HOLE)) {
    if (match.index > last) parts.push(text.slice(last, match.index));
    try {
      parts.push(parseExpression(match[1] ?? ''));
    } catch (error) {
      if (!(error instanceof ExpressionError)) throw error;
      const line = text.slice(0, match.index).split('\n').length;
      throw new TemplateError(`${where}, line ${line}: ${error.message}`);
    }
    last = match.index + match[0].length;
  }
  if (last < text.length) parts.push(text.slice(last));
  const open = parts.find((p) => typeof p === 'string' && p.includes('{{'));
  if (typeof open === 'string') {
    const line = text.slice(0, text.indexOf(open) + open.indexOf('{{')).split('\n').length;
    throw new TemplateError(`${where}, line ${line}: "{{" is never closed with "}}"`);
  }
  return { parts };
}

export function hasExpressions(compiled: CompiledText): boolean {
  return compiled.parts.some((part) => typeof part !== 'string');
}

export function renderExpression(expression: Expression, values: TemplateValues): string {
  if (expression.kind === 'literal') return expression.value;
  const { path, key, fallback } = expression;
  const value = key === undefined ? values.scalars[path] : values.maps[path]?.[key];
  if (value !== undefined) return value;
  if (fallback !== undefined) return fallback;
  const shown = key === undefined ? path : `${path}["${key}"]`;
  throw new TemplateError(
    `${shown} is not set on ${values.subject} (add | default "value" to the template to allow that)`,
  );
}

export function renderText(compiled: CompiledText, values: TemplateValues): string {
  let out = '';
  for (const part of compiled.parts) {
    out += typeof part === 'string' ? part : renderExpression(part, values);
  }
  return out;
}
