// Kubernetes resource quantities (`250m`, `1Gi`, `1e3`) as exact fractions, so that `1000m` and
// `1`, or `1Gi` and `1073741824`, compare equal: the apiserver rewrites quantities into a
// canonical form, and a desired `1000m` must not look like drift against a stored `1`.

export interface Quantity {
  numerator: bigint;
  denominator: bigint;
}

const BINARY: Record<string, number> = { Ki: 1, Mi: 2, Gi: 3, Ti: 4, Pi: 5, Ei: 6 };
const DECIMAL: Record<string, number> = {
  n: -9,
  u: -6,
  m: -3,
  '': 0,
  k: 3,
  M: 6,
  G: 9,
  T: 12,
  P: 15,
  E: 18,
};

const QUANTITY = /^([+-]?)(\d+(?:\.\d*)?|\.\d+)([a-zA-Z]*)([+-]?\d*)$/;

/** The exact value of a quantity, or undefined when the text is not one. */
export function parseQuantity(input: string | number): Quantity | undefined {
  const text = typeof input === 'number' ? numberText(input) : input.trim();
  if (text === undefined) return undefined;
  const match = QUANTITY.exec(text);
  if (!match) return undefined;
  const [, sign = '', mantissa = '', letters = '', digits = ''] = match;
  const [whole = '', fraction = ''] = mantissa.split('.');
  let numerator = BigInt(`${whole}${fraction}` || '0');
  let denominator = 10n ** BigInt(fraction.length);
  let exponent: number;
  if (letters in BINARY && digits === '') {
    numerator *= 1024n ** BigInt(BINARY[letters] ?? 0);
  } else {
    if (letters in DECIMAL && digits === '') exponent = DECIMAL[letters] ?? 0;
    else if ((letters === 'e' || letters === 'E') && /^[+-]?\d+$/.test(digits))
      exponent = Number(digits);
    else return undefined;
    if (Math.abs(exponent) > 1000) return undefined;
    if (exponent >= 0) numerator *= 10n ** BigInt(exponent);
    else denominator *= 10n ** BigInt(-exponent);
  }
  if (sign === '-') numerator = -numerator;
  return { numerator, denominator };
}

/** True when both are quantities with the same value. */
export function quantitiesEqual(a: string | number, b: string | number): boolean {
  const x = parseQuantity(a);
  const y = parseQuantity(b);
  if (!x || !y) return false;
  return x.numerator * y.denominator === y.numerator * x.denominator;
}

function numberText(value: number): string | undefined {
  if (!Number.isFinite(value)) return undefined;
  // 1e21 and 1e-7 print in exponent form, which the grammar accepts.
  return String(value);
}
