// What goes inside `{{ … }}`, parsed and checked against the scope when the template is loaded:
// a value (a variable such as `profile.name`, `profile.labels["team"]`, `values.userIdHeader`,
// a loop variable `c.user`, or a string literal) optionally followed by `| default "text"`; or,
// on a line of its own, a control tag: `if <condition>`, `else`, `end`, `for <name> in <list>`.
// Conditions compare values with `==` and `!=`, joined by `and`, `or`, `not`. Deliberately
// tiny: no code runs, and every name is checked before any Profile is seen.
import { knownNames, type ItemShape, type Scope } from './scope.js';
import { ExpressionError, Tokens } from './tokens.js';

export { ExpressionError } from './tokens.js';

export type Expression =
  | { kind: 'literal'; value: string }
  | { kind: 'variable'; path: string; key?: string | undefined; fallback?: string | undefined };

export type Condition =
  | { kind: 'compare'; op: '==' | '!='; left: Expression; right: Expression }
  | { kind: 'not'; operand: Condition }
  | { kind: 'and' | 'or'; operands: Condition[] };

export type Control =
  | { kind: 'if'; condition: Condition }
  | { kind: 'else' }
  | { kind: 'end' }
  | { kind: 'for'; variable: string; list: string; shape: ItemShape };

const CONTROL_WORDS = ['if', 'else', 'end', 'for'];
const RESERVED = new Set([
  ...CONTROL_WORDS,
  'in',
  'and',
  'or',
  'not',
  'profile',
  'owner',
  'values',
]);

/** A variable or a literal, with its `| default` filters. Does not check the scope. */
function parseValue(tokens: Tokens): Expression {
  const literal = tokens.accept('string');
  if (literal !== undefined) return { kind: 'literal', value: literal };
  const parts = [tokens.take('ident')];
  let key: string | undefined;
  while (tokens.peek()?.text === '.' || tokens.peek()?.text === '[') {
    if (tokens.take('punct') === '.') {
      parts.push(tokens.take('ident'));
    } else {
      key = tokens.take('string');
      tokens.take('punct', ']');
      break;
    }
  }
  const expression: Expression = { kind: 'variable', path: parts.join('.'), key };
  while (tokens.accept('punct', '|') !== undefined) {
    const filter = tokens.take('ident');
    if (filter !== 'default') {
      throw tokens.error(`unknown filter "${filter}" (known: default "value")`);
    }
    expression.fallback = tokens.take('string');
  }
  return expression;
}

/** Fails unless the variable is one the scope knows (a `values.*` with a default may be unset). */
function check(expression: Expression, scope: Scope, tokens: Tokens): Expression {
  if (expression.kind === 'literal') return expression;
  const { path, key, fallback } = expression;
  const root = path.split('.')[0] ?? '';
  const loop = scope.loops.get(root);
  let known: boolean;
  if (key !== undefined) {
    known = scope.maps.has(path);
  } else if (loop !== undefined) {
    const field = path.slice(root.length + 1);
    known = loop === 'text' ? field === '' : loop.includes(field);
  } else if (scope.lists.has(path)) {
    throw tokens.error(`${path} is a list: loop over it with {{ for item in ${path} }}`);
  } else {
    known = scope.scalars.has(path) || (path.startsWith('values.') && fallback !== undefined);
  }
  if (!known) {
    const shown = key === undefined ? path : `${path}["${key}"]`;
    throw new ExpressionError(
      `unknown variable "${shown}" (known: ${knownNames(scope).join(', ')})`,
    );
  }
  scope.used.add(key === undefined && loop === undefined ? path : root);
  return expression;
}

function parseComparison(tokens: Tokens, scope: Scope): Condition {
  if (tokens.accept('ident', 'not') !== undefined) {
    return { kind: 'not', operand: parseComparison(tokens, scope) };
  }
  const left = check(parseValue(tokens), scope, tokens);
  const op = tokens.accept('punct', '==') ?? tokens.accept('punct', '!=');
  if (op === undefined) {
    throw tokens.error(
      'a condition compares two values, e.g. {{ if profile.labels["team"] == "ml" }}',
    );
  }
  const right = check(parseValue(tokens), scope, tokens);
  return { kind: 'compare', op: op as '==' | '!=', left, right };
}

function parseJoined(tokens: Tokens, scope: Scope, word: 'and' | 'or'): Condition {
  const next = () =>
    word === 'or' ? parseJoined(tokens, scope, 'and') : parseComparison(tokens, scope);
  const operands = [next()];
  while (tokens.accept('ident', word) !== undefined) operands.push(next());
  return operands.length === 1 && operands[0] ? operands[0] : { kind: word, operands };
}

/** The inside of a `{{ … }}` that fills a hole. */
export function parseExpression(source: string, scope: Scope): Expression {
  const tokens = new Tokens(source);
  const first = tokens.peek();
  if (first?.type === 'ident' && CONTROL_WORDS.includes(first.text)) {
    throw tokens.error(`{{ ${first.text} … }} must stand alone on its line, in a template file`);
  }
  const expression = check(parseValue(tokens), scope, tokens);
  tokens.end();
  return expression;
}

/** The control tag inside a `{{ … }}`, or undefined when it is not one. */
export function parseControl(source: string, scope: Scope): Control | undefined {
  const tokens = new Tokens(source);
  const word = tokens.peek();
  if (word?.type !== 'ident' || !CONTROL_WORDS.includes(word.text)) return undefined;
  tokens.take('ident');
  let control: Control;
  if (word.text === 'if') {
    control = { kind: 'if', condition: parseJoined(tokens, scope, 'or') };
  } else if (word.text === 'for') {
    const variable = tokens.take('ident');
    if (RESERVED.has(variable) || scope.loops.has(variable)) {
      throw tokens.error(`"${variable}" cannot name a loop variable`);
    }
    tokens.take('ident', 'in');
    const list = [tokens.take('ident')];
    while (tokens.accept('punct', '.') !== undefined) list.push(tokens.take('ident'));
    const name = list.join('.');
    const shape = scope.lists.get(name);
    if (shape === undefined) {
      const lists = [...scope.lists.keys()].join(', ');
      throw tokens.error(`"${name}" is not a list (lists: ${lists})`);
    }
    scope.used.add(name);
    control = { kind: 'for', variable, list: name, shape };
  } else {
    control = { kind: word.text as 'else' | 'end' };
  }
  tokens.end();
  return control;
}
