// Parser for `--env FILE`: KEY=VALUE lines as in a docker/compose env file. Errors name the line,
// so a CI log points straight at the mistake before anything is created in the cluster.

export class EnvFileError extends Error {
  constructor(
    readonly file: string,
    readonly line: number,
    reason: string,
  ) {
    super(`${file}:${line}: ${reason}`);
    this.name = 'EnvFileError';
  }
}

const KEY = /^[A-Za-z_][A-Za-z0-9_.-]*$/;

/** Parses env-file text into an ordered record. Later duplicates override earlier ones. */
export function parseEnvFile(text: string, file = 'env file'): Record<string, string> {
  const out: Record<string, string> = {};
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = index + 1;
    const trimmed = raw.trim();
    if (trimmed === '' || trimmed.startsWith('#')) return;
    const body = trimmed.startsWith('export ')
      ? trimmed.slice('export '.length).trimStart()
      : trimmed;
    const eq = body.indexOf('=');
    if (eq <= 0)
      throw new EnvFileError(file, line, `expected KEY=VALUE, found ${JSON.stringify(raw)}`);
    const key = body.slice(0, eq).trim();
    if (!KEY.test(key)) {
      throw new EnvFileError(file, line, `${JSON.stringify(key)} is not a valid variable name`);
    }
    out[key] = parseValue(body.slice(eq + 1).trim(), file, line);
  });
  return out;
}

function parseValue(value: string, file: string, line: number): string {
  const quote = value[0];
  if (quote === '"' || quote === "'") {
    const { text, end } =
      quote === '"' ? readDoubleQuoted(value, file, line) : readSingleQuoted(value, file, line);
    const rest = value.slice(end + 1).trim();
    if (rest !== '' && !rest.startsWith('#')) {
      throw new EnvFileError(file, line, `unexpected text after the closing quote: ${rest}`);
    }
    return text;
  }
  // Unquoted: an inline comment starts at " #".
  const comment = value.search(/\s#/);
  return (comment >= 0 ? value.slice(0, comment) : value).trim();
}

function readSingleQuoted(value: string, file: string, line: number) {
  const end = value.indexOf("'", 1);
  if (end < 0) throw new EnvFileError(file, line, "unterminated ' quote");
  return { text: value.slice(1, end), end };
}

/** Double quotes know the escapes \n, \t, \", \\ and \$; any other backslash stays as it is. */
function readDoubleQuoted(value: string, file: string, line: number) {
  const escapes: Record<string, string> = { n: '\n', t: '\t', '"': '"', '\\': '\\', $: '$' };
  let text = '';
  for (let i = 1; i < value.length; i++) {
    const char = value.charAt(i);
    if (char === '"') return { text, end: i };
    if (char === '\\' && i + 1 < value.length) {
      const next = value.charAt(i + 1);
      const escaped = escapes[next];
      text += escaped ?? `\\${next}`;
      i++;
    } else {
      text += char;
    }
  }
  throw new EnvFileError(file, line, 'unterminated " quote');
}
