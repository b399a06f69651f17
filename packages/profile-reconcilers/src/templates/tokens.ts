// The words of the template language inside `{{ … }}`: names (`profile`, `labels`, `if`),
// quoted strings, and the punctuation `.` `[` `]` `|` `==` `!=`. Anything else is an error, so
// nothing that looks like code can slip through.

export interface Token {
  type: 'ident' | 'string' | 'punct';
  text: string;
}

export class ExpressionError extends Error {
  override name = 'ExpressionError';
}

function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < source.length) {
    const char = source.charAt(i);
    const pair = source.slice(i, i + 2);
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
    } else if (pair === '==' || pair === '!=') {
      tokens.push({ type: 'punct', text: pair });
      i += 2;
    } else if ('.[]|'.includes(char)) {
      tokens.push({ type: 'punct', text: char });
      i++;
    } else {
      throw new ExpressionError(`unexpected "${char}" in "${source}"`);
    }
  }
  return tokens;
}

/** A cursor over the tokens of one `{{ … }}`, with errors that quote the source. */
export class Tokens {
  readonly #tokens: Token[];
  readonly source: string;
  #at = 0;

  constructor(source: string) {
    this.source = source.trim();
    this.#tokens = tokenize(source);
  }

  peek(offset = 0): Token | undefined {
    return this.#tokens[this.#at + offset];
  }

  get done(): boolean {
    return this.#at >= this.#tokens.length;
  }

  /** The next token if it is `text` (any text of `type` when `text` is undefined). */
  accept(type: Token['type'], text?: string): string | undefined {
    const token = this.#tokens[this.#at];
    if (token?.type !== type || (text !== undefined && token.text !== text)) return undefined;
    this.#at++;
    return token.text;
  }

  take(type: Token['type'], text?: string): string {
    const taken = this.accept(type, text);
    if (taken !== undefined) return taken;
    const token = this.#tokens[this.#at];
    const wanted = text === undefined ? (type === 'ident' ? 'a name' : `a ${type}`) : `"${text}"`;
    throw this.error(`expected ${wanted} ${token ? `at "${token.text}"` : 'at the end'}`);
  }

  /** Fails unless every token was used. */
  end(): void {
    const token = this.#tokens[this.#at];
    if (token) throw this.error(`unexpected "${token.text}"`);
  }

  error(message: string): ExpressionError {
    return new ExpressionError(`${message} in "${this.source}"`);
  }
}
