// Text with `{{ expression }}` holes: compiled once (every variable checked, errors naming the
// file and line), rendered per Profile. A variable with no value and no `| default` is an error
// for that Profile only. Control tags (`{{ if }}`, `{{ for }}`) belong to template files
// (template-blocks.ts), not to single texts such as a subject name.
import { renderExpression } from './evaluate.js';
import { ExpressionError, parseExpression, type Expression } from './expression.js';
import { baseScope, NO_ENV, type Env, type Scope, type TemplateValues } from './scope.js';
import { TemplateError } from './template-error.js';

export { templateValues, type TemplateValues } from './scope.js';

type TemplatePart = string | Expression;

export interface CompiledText {
  parts: TemplatePart[];
}

const HOLE = /\{\{([\s\S]*?)\}\}/g;

/**
 * `where` names the source in errors, e.g. `template authz.yaml`; `firstLine` is the line of the
 * text's start in that source.
 */
export function compileText(
  text: string,
  where: string,
  scope: Scope = baseScope(),
  firstLine = 1,
): CompiledText {
  const parts: TemplatePart[] = [];
  const lineOf = (index: number) => firstLine + text.slice(0, index).split('\n').length - 1;
  let last = 0;
  for (const match of text.matchAll(HOLE)) {
    if (match.index > last) parts.push(text.slice(last, match.index));
    try {
      parts.push(parseExpression(match[1] ?? '', scope));
    } catch (error) {
      if (!(error instanceof ExpressionError)) throw error;
      throw new TemplateError(`${where}, line ${lineOf(match.index)}: ${error.message}`);
    }
    last = match.index + match[0].length;
  }
  if (last < text.length) parts.push(text.slice(last));
  const open = parts.find((p) => typeof p === 'string' && p.includes('{{'));
  if (typeof open === 'string') {
    const line = lineOf(text.indexOf(open) + open.indexOf('{{'));
    throw new TemplateError(`${where}, line ${line}: "{{" is never closed with "}}"`);
  }
  return { parts };
}

export function renderText(
  compiled: CompiledText,
  values: TemplateValues,
  env: Env = NO_ENV,
): string {
  let out = '';
  for (const part of compiled.parts) {
    out += typeof part === 'string' ? part : renderExpression(part, values, env);
  }
  return out;
}
