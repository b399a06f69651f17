// The expression inside `{{ … }}`: a variable such as `profile.name`, `owner.name` or
// `profile.labels["team"]`, or a string literal, optionally followed by `| default "value"`.
// Deliberately tiny: no code runs, and every variable is checked when the template is loaded.

export type Expression =
  | { kind: 'literal'; value: string }
  | { kind: 'variable'; path: string; key?: string | undefined; fallback?: string | undefined };

/** Plain variables and the maps that take a `["key"]`. */
export const VARIABLES = [
  'profile.name',
  'profile.namespace',
  'profile.uid',
  'owner.name',
  'owner.kind',
];
export const MAPS = ['profile.labels', 'profile.annotations'];

export class ExpressionError extends Error {
  override name = 'ExpressionError';
}

interface Token {
  type: 'ident' | 'string' | 'punct';
  text: string;
}

function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < source.length) {
    const char = source.charAt(i);
    if (/\s/.test(char)) {
      i++;
    } else if (/[A-Za-z_]/.test(char)) {
      const match = /^[A-Za-z_][A-Za-z0-9_-]*/.exec(source.slice(i))?.[0] ?? char;
      tokens.push({ type: 'ident', text: match });
      i += match.length;
    } else if (char === '"' || char === "'") {
      let text = '';
      let j = i + 1;
      for (; j < source.length && source.charAt(j) !== char; j++) {
        if (source.charAt(j) === '\\' && j + 1 < source.length) j++;
        text += source.charAt(j);
      }
      if (j >= source.length) throw new ExpressionError(`unterminated string in "${source}"`);
      tokens.push({ type: 'string', text });
      i = j + 1;
    } else if ('.[]|'.includes(char)) {
      tokens.push({ type: 'punct', text: char });
      i++;
    } else {
      throw new ExpressionError(`unexpected "${char}" in "${source}"`);
    }
  }
  return tokens;
}

export function parseExpression(source: string): Expression {
  const tokens = tokenize(source);
  let at = 0;
  const peek = () => tokens[at];
  const take = (type: Token['type'], text?: string): string => {
    const token = tokens[at];
    if (token?.type !== type || (text !== undefined && token.text !== text)) {
      const wanted = text === undefined ? (type === 'ident' ? 'a name' : `a ${type}`) : `"${text}"`;
      throw new ExpressionError(
        `expected ${wanted} ${token ? `at "${token.text}"` : 'at the end'} in "${source.trim()}"`,
      );
    }
    at++;
    return token.text;
  };

  let expression: Expression;
  if (peek()?.type === 'string') {
    expression = { kind: 'literal', value: take('string') };
  } else {
    const parts = [take('ident')];
    let key: string | undefined;
    while (peek()?.text === '.' || peek()?.text === '[') {
      if (take('punct') === '.') {
        parts.push(take('ident'));
      } else {
        key = take('string');
        take('punct', ']');
        break;
      }
    }
    const path = parts.join('.');
    if (key === undefined ? !VARIABLES.includes(path) : !MAPS.includes(path)) {
      const shown = key === undefined ? path : `${path}["${key}"]`;
      throw new ExpressionError(
        `unknown variable "${shown}" (known: ${[...VARIABLES, ...MAPS.map((m) => `${m}["key"]`)].join(', ')})`,
      );
    }
    expression = { kind: 'variable', path, key };
  }
  while (peek()?.text === '|') {
    take('punct', '|');
    const filter = take('ident');
    if (filter !== 'default' || expression.kind !== 'variable') {
      throw new ExpressionError(
        `unknown filter "${filter}" in "${source.trim()}" (known: default "value")`,
      );
    }
    expression.fallback = take('string');
  }
  if (at < tokens.length) {
    throw new ExpressionError(`unexpected "${tokens[at]?.text ?? ''}" in "${source.trim()}"`);
  }
  return expression;
}
