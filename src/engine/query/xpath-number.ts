/**
 * XPath 1.0 number-to-string (§4.2 `string()`): integers without a decimal point, no
 * exponent ever, `NaN`, `Infinity`, `-Infinity`, and negative zero as `0`. JavaScript's
 * shortest round-trip digits are exactly "as many digits as needed to distinguish the number".
 */
export function xpathNumberToString(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Number.POSITIVE_INFINITY) return 'Infinity';
  if (value === Number.NEGATIVE_INFINITY) return '-Infinity';
  if (value === 0) return '0';
  const text = String(value);
  return text.includes('e') ? expandExponent(text) : text;
}

function expandExponent(text: string): string {
  const [mantissa = '', exponentText = '0'] = text.split('e');
  const negative = mantissa.startsWith('-');
  const digits = mantissa.replace('-', '');
  const [whole = '', fraction = ''] = digits.split('.');
  const exponent = Number(exponentText);
  const allDigits = whole + fraction;
  const pointAt = whole.length + exponent;
  let result: string;
  if (pointAt <= 0) result = `0.${'0'.repeat(-pointAt)}${allDigits}`;
  else if (pointAt >= allDigits.length) result = allDigits + '0'.repeat(pointAt - allDigits.length);
  else result = `${allDigits.slice(0, pointAt)}.${allDigits.slice(pointAt)}`;
  return negative ? `-${result}` : result;
}
