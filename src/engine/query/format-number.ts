/**
 * fn:format-number for XPath 3.1 (XPath and XQuery Functions 3.1, §4.7), which fontoxpath 3.34
 * lacks: models ask for fixed decimals, thousands separators and percentages in the figures they
 * report, and `round-half-to-even` drops trailing zeros (`9.4` where `9.40` was asked). Only the
 * default decimal format exists (XPath declares no other): `.` decimal, `,` grouping, `#` optional
 * digit, `0`–`9` digits, `%` and `‰`, `e` exponent, `;` between the positive and negative
 * sub-pictures. The number is formatted from its shortest decimal form, rounded half to even, so
 * `format-number(2.675, '0.00')` is `2.68` as for the xs:decimal 2.675 (fontoxpath holds every
 * number as a double). docs/adr/0056-format-number.md.
 */

const DECIMAL = '.';
const GROUPING = ',';
const EXPONENT = 'e';
const OPTIONAL = '#';
const PATTERN = ';';
const PERCENT = '%';
const PER_MILLE = '\u2030';
const MINUS = '-';

const isDigit = (char: string) => char >= '0' && char <= '9';
const isActive = (char: string) =>
  isDigit(char) || char === DECIMAL || char === GROUPING || char === OPTIONAL || char === EXPONENT;

/** What a sub-picture says, as §4.7.4 analyses it. */
interface SubPicture {
  prefix: string;
  suffix: string;
  minInteger: number;
  minFraction: number;
  maxFraction: number;
  minExponent: number;
  /** Digits of the integer part before adjustment: the mantissa's integer digits in exponent form. */
  scaling: number;
  /** Grouping positions counted from the right of the integer part; one position that repeats when `regular`. */
  integerGroups: number[];
  regular: boolean;
  /** Grouping positions counted from the left of the fractional part. */
  fractionGroups: number[];
  multiplier: 0 | 2 | 3;
}

/** A non-negative decimal: 0.`digits` × 10^`point`, `digits` without leading or trailing zeros ('' for zero). */
interface Decimal {
  digits: string;
  point: number;
}

export function formatNumber(
  value: number | null,
  picture: string,
  decimalFormat: string | null = null,
): string {
  if (decimalFormat !== null)
    throw new Error(
      `FODF1280: format-number has no decimal format named "${decimalFormat}": XPath declares none; leave the third argument out.`,
    );
  const pictures = subPictures(picture);
  if (value === null || Number.isNaN(value)) return 'NaN';
  const negative = value < 0 || Object.is(value, -0);
  const sub = (negative && pictures[1]) || (pictures[0] as SubPicture);
  const sign = negative && pictures.length === 1 ? MINUS : '';
  // Scaled as XPath multiplies a double (1e308 as a percentage is Infinity%; x‰ is x × 1000's digits).
  const scaled = Math.abs(value) * 10 ** sub.multiplier;
  if (!Number.isFinite(scaled)) return `${sign}${sub.prefix}Infinity${sub.suffix}`;
  let number = decimalOf(scaled);
  let exponent = 0;
  if (sub.minExponent > 0 && number.digits !== '') {
    // The mantissa has `scaling` integer digits before rounding; rounding up may give it one
    // more (0.99999999 with '0.0e0' is 10.0e-1), as the specification's own examples show.
    exponent = number.point - sub.scaling;
    number = { digits: number.digits, point: sub.scaling };
  }
  number = roundHalfEven(number, sub.maxFraction);
  const integer = grouped(
    integerDigits(number).padStart(sub.minInteger, '0'),
    sub.integerGroups,
    sub.regular,
  );
  let fraction = fractionDigits(number);
  fraction = fraction.padEnd(sub.minFraction, '0');
  fraction = groupedFraction(fraction, sub.fractionGroups);
  const mantissa = fraction === '' ? integer : `${integer}${DECIMAL}${fraction}`;
  const exponentPart =
    sub.minExponent > 0
      ? `${EXPONENT}${exponent < 0 ? MINUS : ''}${String(Math.abs(exponent)).padStart(sub.minExponent, '0')}`
      : '';
  return `${sign}${sub.prefix}${mantissa}${exponentPart}${sub.suffix}`;
}

function pictureError(picture: string, why: string): Error {
  return new Error(`FODF1310: The picture "${picture}" of format-number is not valid: ${why}.`);
}

function subPictures(picture: string): SubPicture[] {
  const parts = picture.split(PATTERN);
  if (parts.length > 2) throw pictureError(picture, `it has more than one "${PATTERN}"`);
  return parts.map((part) => analyse(picture, [...part]));
}

/** §4.7.3's rules, then §4.7.4's analysis, of one sub-picture's characters. */
function analyse(picture: string, chars: string[]): SubPicture {
  // Linear in the picture, which an expression can build as long as it likes.
  const firstRaw = chars.findIndex(isActive);
  const lastRaw = chars.findLastIndex(isActive);
  const exponentAt = chars.findIndex(
    (char, index) => char === EXPONENT && index > firstRaw && index < lastRaw,
  );
  const activeAt = (index: number) =>
    isActive(chars[index] as string) && (chars[index] !== EXPONENT || index === exponentAt);
  let lastActive = -1;
  for (let index = 0; index < chars.length; index++) if (activeAt(index)) lastActive = index;
  const sub: SubPicture = {
    prefix: '',
    suffix: '',
    minInteger: 0,
    minFraction: 0,
    maxFraction: 0,
    minExponent: 0,
    scaling: 0,
    integerGroups: [],
    regular: false,
    fractionGroups: [],
    multiplier: 0,
  };
  let inFraction = false;
  let seenActive = false;
  let optionalInteger = 0;
  let optionalFraction = 0;
  let mantissaDigit = false;
  for (let index = 0; index < chars.length; index++) {
    const char = chars[index] as string;
    if (!activeAt(index)) {
      if (seenActive && index < lastActive)
        throw pictureError(picture, `"${char}" stands between the digits`);
      if (char === PERCENT || char === PER_MILLE) {
        if (sub.multiplier !== 0) throw pictureError(picture, 'it has more than one % or ‰');
        sub.multiplier = char === PERCENT ? 2 : 3;
      }
      if (seenActive) sub.suffix += char;
      else sub.prefix += char;
      continue;
    }
    seenActive = true;
    if (exponentAt !== -1 && index > exponentAt) {
      if (!isDigit(char)) throw pictureError(picture, 'only digits may follow the exponent "e"');
      sub.minExponent++;
    } else if (index === exponentAt) {
      // The exponent's digits are read above.
    } else if (char === DECIMAL) {
      if (inFraction) throw pictureError(picture, 'it has more than one "."');
      inFraction = true;
    } else if (char === GROUPING) {
      const next = chars[index + 1] ?? '';
      const digitNext = isDigit(next) || next === OPTIONAL;
      // Not next to the ".", not twice in a row, not at the end of the integer part.
      if (
        chars[index - 1] === DECIMAL ||
        next === DECIMAL ||
        next === GROUPING ||
        (!inFraction && !digitNext)
      )
        throw pictureError(picture, '"," must stand between digits');
      if (inFraction) sub.fractionGroups.push(sub.minFraction + optionalFraction);
      else sub.integerGroups.push(sub.minInteger + optionalInteger);
    } else if (char === OPTIONAL) {
      if (inFraction) optionalFraction++;
      else if (mantissaDigit) throw pictureError(picture, 'a "#" follows a digit in the integer part');
      else optionalInteger++;
    } else {
      if (inFraction && optionalFraction > 0)
        throw pictureError(picture, 'a digit follows a "#" in the fractional part');
      mantissaDigit = true;
      if (inFraction) sub.minFraction++;
      else sub.minInteger++;
    }
  }
  if (!mantissaDigit && optionalInteger === 0 && optionalFraction === 0)
    throw pictureError(picture, 'it has no digit and no "#"');
  if (exponentAt !== -1 && sub.multiplier !== 0)
    throw pictureError(picture, 'it has both % or ‰ and an exponent');
  const integerSize = sub.minInteger + optionalInteger;
  sub.integerGroups = sub.integerGroups.map((at) => integerSize - at);
  const positions = [...new Set(sub.integerGroups)].sort((a, b) => a - b);
  const first = positions[0] ?? 0;
  // Regular: the positions (from the right) are the first one's multiples, none left out, and
  // the next multiple lies past the picture's digits (`#,##0`, `,##0`): it then repeats.
  if (
    first > 0 &&
    positions.every((at, index) => at === first * (index + 1)) &&
    first * (positions.length + 1) >= integerSize
  ) {
    sub.regular = true;
    sub.integerGroups = [first];
  }
  sub.scaling = sub.minInteger;
  sub.maxFraction = sub.minFraction + optionalFraction;
  if (sub.minInteger === 0 && sub.maxFraction === 0) {
    if (exponentAt !== -1) {
      sub.minFraction = 1;
      sub.maxFraction = 1;
    } else {
      sub.minInteger = 1;
    }
  }
  if (exponentAt !== -1 && sub.minInteger === 0 && optionalInteger > 0) sub.minInteger = 1;
  if (sub.minInteger === 0 && sub.minFraction === 0) sub.minFraction = 1;
  return sub;
}

/** A finite non-negative number's shortest decimal form (what String() writes, without its exponent). */
function decimalOf(value: number): Decimal {
  if (value === 0) return { digits: '', point: 0 };
  const [mantissa = '', exponent = '0'] = value.toExponential().split('e');
  const digits = mantissa.replace(DECIMAL, '').replace(/0+$/, '');
  return { digits, point: Number(exponent) + 1 };
}

/** `number` rounded to `fraction` fractional digits, half to even. */
function roundHalfEven(number: Decimal, fraction: number): Decimal {
  const keep = number.point + fraction;
  if (keep >= number.digits.length) return number;
  if (keep < 0) return { digits: '', point: 0 };
  const head = number.digits.slice(0, keep);
  const next = number.digits[keep] as string;
  const rest = number.digits.slice(keep + 1);
  const lastKept = keep === 0 ? 0 : Number(head[keep - 1]);
  const up = next > '5' || (next === '5' && (/[1-9]/.test(rest) || lastKept % 2 === 1));
  if (!up) return trimmed(head, number.point);
  const raised = (BigInt(`0${head}`) + 1n).toString();
  return trimmed(raised, number.point + raised.length - head.length);
}

function trimmed(digits: string, point: number): Decimal {
  const without = digits.replace(/^0+/, '');
  const shift = digits.length - without.length;
  const kept = without.replace(/0+$/, '');
  return kept === '' ? { digits: '', point: 0 } : { digits: kept, point: point - shift };
}

function integerDigits({ digits, point }: Decimal): string {
  return point > 0 ? digits.slice(0, point).padEnd(point, '0') : '';
}

function fractionDigits({ digits, point }: Decimal): string {
  return point >= 0 ? digits.slice(point) : '0'.repeat(-point) + digits;
}

/** The integer part's digits with a separator wherever `groups` (from the right) or, when regular, each multiple of its one position says. */
function grouped(integer: string, groups: readonly number[], regular: boolean): string {
  const every = groups[0] ?? 0;
  const at = new Set(groups);
  let written = '';
  for (let index = 0; index < integer.length; index++) {
    const right = integer.length - index;
    if (index > 0 && (regular ? right % every === 0 : at.has(right))) written += GROUPING;
    written += integer[index];
  }
  return written;
}

function groupedFraction(fraction: string, groups: readonly number[]): string {
  const chars = [...fraction];
  for (const at of [...groups].sort((a, b) => b - a))
    if (at > 0 && at < chars.length) chars.splice(at, 0, GROUPING);
  return chars.join('');
}
