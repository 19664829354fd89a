import { MAX_EXACT_DISTINCT, MAX_PROFILE_VALUE_CHARS, MAX_PROFILE_VALUES } from '../../limits.js';
import { decodeUtf8 } from '../libxml2/utf8.js';

/** One distinct value kept: its first characters (all of it unless `cut`) and how often it occurs. */
export interface KeptValue {
  text: string;
  cut: boolean;
  count: number;
  /** The value's hash as two 32-bit halves, for the distinct estimate once the cap is passed. */
  high: number;
  low: number;
}

/** Registers of the distinct-value estimate (HyperLogLog): 256 bytes, a standard error of ~6.5%. */
const SKETCH_SIZE = 256;
/** Numbers longer than this are not read as numbers (a hostile 1 MB string of digits). */
const MAX_NUMBER_BYTES = 64;

/**
 * What one field's values are (an attribute at one path, or the text of the leaves at one path),
 * gathered one value at a time from its UTF-8 bytes: how many, how many empty, padded with white
 * space or holding markup; whether all are numbers (and integers) or dates, with the least and the
 * greatest as written; and the first MAX_PROFILE_VALUES distinct values with their counts. Past
 * that cap a value not kept adds only to an estimate of the distinct values, so memory stays
 * bounded whatever the document (docs/adr/0037-inspect-shows-values.md). Each value is read once,
 * in place: it is decoded only when kept, or when it is a new least or greatest number or date.
 */
export class ValueProfile {
  /** Values seen. */
  count = 0;
  empty = 0;
  /** Values starting or ending with XML white space. */
  padded = 0;
  /** Values holding `<` before a letter, `/`, `!` or `?`: markup kept as text (HTML in CDATA). */
  markup = 0;
  /** Values written as an XPath 1.0 number (`-12`, `0.5`, `.5`), and those of them without a point. */
  numbers = 0;
  integers = 0;
  least = Number.POSITIVE_INFINITY;
  greatest = Number.NEGATIVE_INFINITY;
  leastText = '';
  greatestText = '';
  /** Values written as a date, `YYYY-MM-DD`; the least and greatest compare as text. */
  dates = 0;
  firstDate = '';
  lastDate = '';
  /** Kept distinct values by hash, first seen first. */
  readonly kept = new Map<number, KeptValue>();
  /** Set once a value could not be kept: the distinct values are then estimated from it. */
  sketch: Uint8Array | undefined;
  /**
   * The keys of the distinct values not kept, while there are at most MAX_EXACT_DISTINCT of them,
   * so that the count stays exact past the kept texts (ADR 0043); `null` once there were more.
   */
  others: KeySet | null | undefined;

  add(bytes: Uint8Array, start: number, end: number): void {
    this.count++;
    if (end === start) {
      this.empty++;
      countValue(this, 0x811c9dc5, 0x9747b28c, bytes, start, end);
      return;
    }
    // One pass over the bytes: two hashes, the number and date forms, markup.
    let high = 0x811c9dc5;
    let low = 0x9747b28c;
    // Number: 0 start, 1 after '-', 2 digits, 3 digits '.', 4 '.' alone, 5 '.' digits; -1 not one.
    let number = 0;
    let date = end - start === 10;
    let markup = false;
    let previous = 0;
    for (let at = start; at < end; at++) {
      const byte = bytes[at] as number;
      high = Math.imul(high ^ byte, 0x01000193);
      low = Math.imul(low ^ byte, 0x5bd1e995);
      if (number >= 0) number = nextNumberState(number, byte);
      if (date) {
        const i = at - start;
        date = i === 4 || i === 7 ? byte === 0x2d : byte >= 0x30 && byte <= 0x39;
      }
      if (previous === 0x3c && !markup) markup = startsMarkup(byte);
      previous = byte;
    }
    if (isSpace(bytes[start] as number) || isSpace(bytes[end - 1] as number)) this.padded++;
    if (markup) this.markup++;
    if ((number === 2 || number === 3 || number === 5) && end - start <= MAX_NUMBER_BYTES) {
      this.numbers++;
      if (number === 2) this.integers++;
      const text = ascii(bytes, start, end);
      const value = Number(text);
      if (value < this.least) {
        this.least = value;
        this.leastText = text;
      }
      if (value > this.greatest) {
        this.greatest = value;
        this.greatestText = text;
      }
    }
    if (date) {
      this.dates++;
      const text = ascii(bytes, start, end);
      if (this.firstDate === '' || text < this.firstDate) this.firstDate = text;
      if (text > this.lastDate) this.lastDate = text;
    }
    countValue(this, high, low, bytes, start, end);
  }

  /** Adds the other field's values to this one's (a name over its paths). */
  merge(other: ValueProfile): void {
    this.count += other.count;
    this.empty += other.empty;
    this.padded += other.padded;
    this.markup += other.markup;
    this.numbers += other.numbers;
    this.integers += other.integers;
    if (other.least < this.least) {
      this.least = other.least;
      this.leastText = other.leastText;
    }
    if (other.greatest > this.greatest) {
      this.greatest = other.greatest;
      this.greatestText = other.greatestText;
    }
    this.dates += other.dates;
    if (other.firstDate !== '' && (this.firstDate === '' || other.firstDate < this.firstDate))
      this.firstDate = other.firstDate;
    if (other.lastDate > this.lastDate) this.lastDate = other.lastDate;
    for (const [key, value] of other.kept) {
      const known = this.kept.get(key);
      if (known) known.count += value.count;
      else if (this.kept.size < MAX_PROFILE_VALUES) this.kept.set(key, { ...value });
      else estimate(this, key, value.high, value.low);
    }
    if (other.others === null) this.others = null;
    else if (other.others && this.others !== null) {
      startSketch(this);
      for (const key of other.others.keys()) if (!this.kept.has(key)) remember(this, key);
    }
    if (other.sketch) {
      startSketch(this);
      const sketch = this.sketch as Uint8Array;
      for (let i = 0; i < SKETCH_SIZE; i++)
        sketch[i] = Math.max(sketch[i] as number, other.sketch[i] as number);
    }
  }

  /**
   * The number of distinct values: exact (`estimated` false) while every one was kept or, past
   * that, while at most MAX_EXACT_DISTINCT were not.
   */
  distinct(): { count: number; estimated: boolean } {
    const sketch = this.sketch;
    if (!sketch) return { count: this.kept.size, estimated: false };
    if (this.others) return { count: this.kept.size + this.others.size, estimated: false };
    let sum = 0;
    let zeros = 0;
    for (let i = 0; i < SKETCH_SIZE; i++) {
      const register = sketch[i] as number;
      sum += 2 ** -register;
      if (register === 0) zeros++;
    }
    const alpha = 0.7213 / (1 + 1.079 / SKETCH_SIZE);
    let estimate = (alpha * SKETCH_SIZE * SKETCH_SIZE) / sum;
    if (estimate <= 2.5 * SKETCH_SIZE && zeros > 0) estimate = SKETCH_SIZE * Math.log(SKETCH_SIZE / zeros);
    // Never fewer than those kept and the one that was not, never more than the values.
    const count = Math.min(this.count, Math.max(this.kept.size + 1, Math.round(estimate)));
    return { count, estimated: true };
  }
}

/** Counts a value by its hashes: a kept one's count, a new one kept while there is room, else the sketch. */
function countValue(
  profile: ValueProfile,
  high: number,
  low: number,
  bytes: Uint8Array,
  start: number,
  end: number,
): void {
  high = mix(high);
  low = mix(low);
  // 53 bits of the two hashes: two distinct values share a key once in ~10^16 pairs.
  const key = (high >>> 0) * 0x200000 + (low >>> 11);
  const known = profile.kept.get(key);
  if (known) {
    known.count++;
    return;
  }
  if (profile.kept.size < MAX_PROFILE_VALUES) {
    const { text, cut } = shown(bytes, start, end);
    profile.kept.set(key, { text, cut, count: 1, high, low });
    return;
  }
  estimate(profile, key, high, low);
}

function startSketch(profile: ValueProfile): void {
  if (profile.sketch) return;
  profile.sketch = new Uint8Array(SKETCH_SIZE);
  for (const value of profile.kept.values()) register(profile.sketch, value.high, value.low);
}

function estimate(profile: ValueProfile, key: number, high: number, low: number): void {
  startSketch(profile);
  register(profile.sketch as Uint8Array, high, low);
  remember(profile, key);
}

/** Adds a key to the exact set of values not kept, dropping the set once it passes its cap. */
function remember(profile: ValueProfile, key: number): void {
  if (profile.others === null) return;
  profile.others ??= new KeySet();
  if (!profile.others.add(key)) profile.others = null;
}

/**
 * A set of 53-bit keys in one Float64Array, open addressing, grown by doubling: 16 KB at most
 * (MAX_EXACT_DISTINCT keys at half load), where a Set of numbers costs some 40 bytes a key.
 */
export class KeySet {
  size = 0;
  #slots = new Float64Array(64);

  /** Adds the key; false once the set would pass MAX_EXACT_DISTINCT keys. */
  add(key: number): boolean {
    if (!this.#insert(key + 1)) return true;
    this.size++;
    if (this.size > MAX_EXACT_DISTINCT) return false;
    if (2 * this.size > this.#slots.length) this.#grow();
    return true;
  }

  *keys(): Generator<number> {
    for (const slot of this.#slots) if (slot !== 0) yield slot - 1;
  }

  /** Inserts a stored key (the key plus one: 0 marks a free slot); false when already there. */
  #insert(stored: number): boolean {
    const mask = this.#slots.length - 1;
    // The key's low bits come from a murmur-finalised hash: spread well enough to index by.
    for (let at = stored & mask; ; at = (at + 1) & mask) {
      const slot = this.#slots[at] as number;
      if (slot === stored) return false;
      if (slot === 0) {
        this.#slots[at] = stored;
        return true;
      }
    }
  }

  #grow(): void {
    const old = this.#slots;
    this.#slots = new Float64Array(2 * old.length);
    for (const slot of old) if (slot !== 0) this.#insert(slot);
  }
}

/** The register from the top byte of one hash, the rank from the other's low 21 bits. */
function register(sketch: Uint8Array, high: number, low: number): void {
  const index = high >>> 24;
  const rank = Math.clz32((low << 11) | 0x400) + 1;
  if (rank > (sketch[index] as number)) sketch[index] = rank;
}

function nextNumberState(state: number, byte: number): number {
  const digit = byte >= 0x30 && byte <= 0x39;
  switch (state) {
    case 0:
      return byte === 0x2d ? 1 : digit ? 2 : byte === 0x2e ? 4 : -1;
    case 1:
      return digit ? 2 : byte === 0x2e ? 4 : -1;
    case 2:
      return digit ? 2 : byte === 0x2e ? 3 : -1;
    case 3:
    case 4:
    case 5:
      return digit ? 5 : -1;
    default:
      return -1;
  }
}

function startsMarkup(byte: number): boolean {
  const letter = (byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7a;
  return letter || byte === 0x2f || byte === 0x21 || byte === 0x3f;
}

function isSpace(byte: number): boolean {
  return byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d;
}

/** murmur3's finaliser: spreads every input bit over the whole word. */
function mix(hash: number): number {
  let h = hash ^ (hash >>> 16);
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
}

/** Bytes known to be ASCII (a number, a date) as a string. */
function ascii(bytes: Uint8Array, start: number, end: number): string {
  let text = '';
  for (let at = start; at < end; at++) text += String.fromCharCode(bytes[at] as number);
  return text;
}

/**
 * The value's first MAX_PROFILE_VALUE_CHARS characters; `cut` when there are more. Decodes at
 * most four bytes a character, and never leaves half a surrogate pair.
 */
function shown(bytes: Uint8Array, start: number, end: number): { text: string; cut: boolean } {
  // Short ASCII, the usual value, without TextDecoder, which costs microseconds a call.
  if (end - start <= MAX_PROFILE_VALUE_CHARS) {
    let text = '';
    for (let at = start; at < end; at++) {
      const byte = bytes[at] as number;
      if (byte >= 0x80) {
        text = '';
        break;
      }
      text += String.fromCharCode(byte);
      if (at === end - 1) return { text, cut: false };
    }
  }
  const room = 4 * MAX_PROFILE_VALUE_CHARS;
  const whole = end - start <= room;
  const text = decodeUtf8(bytes.subarray(start, whole ? end : start + room));
  if (whole && text.length <= MAX_PROFILE_VALUE_CHARS) return { text, cut: false };
  let length = MAX_PROFILE_VALUE_CHARS;
  const last = text.charCodeAt(length - 1);
  if (last >= 0xd800 && last <= 0xdbff) length--;
  return { text: text.slice(0, length), cut: true };
}
