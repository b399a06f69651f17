// Expressions and conditions evaluated for one Profile. A hole whose variable has no value and
// no `| default` is an error for that Profile only; in a condition an unset variable simply
// equals no text, so `{{ if profile.labels["x"] == "y" }}` is false without the label.
import type { Condition, Expression } from './expression.js';
import { NO_ENV, type Env, type ListItem, type TemplateValues } from './scope.js';
import { TemplateError } from './template-error.js';

/** The variable's value, undefined when unset (the default, if any, not applied). */
function lookup(
  expression: Extract<Expression, { kind: 'variable' }>,
  values: TemplateValues,
  env: Env,
): string | undefined {
  const { path, key } = expression;
  if (key !== undefined) return values.maps[path]?.[key];
  const dot = path.indexOf('.');
  const root = dot < 0 ? path : path.slice(0, dot);
  const item = env.get(root);
  if (item !== undefined) return typeof item === 'string' ? item : item[path.slice(dot + 1)];
  return values.scalars[path];
}

function valueOf(expression: Expression, values: TemplateValues, env: Env): string | undefined {
  if (expression.kind === 'literal') return expression.value;
  return lookup(expression, values, env) ?? expression.fallback;
}

export function renderExpression(
  expression: Expression,
  values: TemplateValues,
  env: Env = NO_ENV,
): string {
  const value = valueOf(expression, values, env);
  if (value !== undefined) return value;
  const { path, key } = expression as Extract<Expression, { kind: 'variable' }>;
  const shown = key === undefined ? path : `${path}["${key}"]`;
  throw new TemplateError(
    `${shown} is not set on ${values.subject} (add | default "value" to the template to allow that)`,
  );
}

export function evaluate(condition: Condition, values: TemplateValues, env: Env): boolean {
  switch (condition.kind) {
    case 'compare': {
      const same = valueOf(condition.left, values, env) === valueOf(condition.right, values, env);
      return condition.op === '==' ? same : !same;
    }
    case 'not':
      return !evaluate(condition.operand, values, env);
    case 'and':
      return condition.operands.every((c) => evaluate(c, values, env));
    case 'or':
      return condition.operands.some((c) => evaluate(c, values, env));
  }
}

export function listItems(name: string, values: TemplateValues): readonly ListItem[] {
  return values.lists[name] ?? [];
}
