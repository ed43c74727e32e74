// Longest-prefix match over a rate card. Each prefix of up to 15 digits is keyed by (length, numeric
// value) in an open-addressing hash table held in typed arrays: no per-entry objects, no string
// hashing, and keys beyond 2^31 stay cheap (a Map would box them). Longer prefixes (rare) live in a
// Map keyed by text. A lookup walks the destination's digits once, building each candidate key
// incrementally, and probes only the lengths present, longest first.

const MAX_NUMERIC_DIGITS = 15;
const TWO_32 = 4294967296;
const EMPTY = -1;

export interface PrefixMatch<T> {
  prefix: string;
  value: T;
}

function slotHash(hi: number, lo: number, len: number): number {
  let h = Math.imul(lo ^ Math.imul(hi, 0x9e3779b1) ^ Math.imul(len, 0x85ebca6b), 0x27d4eb2d);
  h ^= h >>> 15;
  return Math.imul(h, 0x165667b1) ^ (h >>> 13);
}

export class PrefixTable<T> {
  // One slot = 4 int32 [lo, hi, len, index + 1] (0 = empty): a probe touches one cache line.
  private slots = new Int32Array(0);
  private mask = 0;
  // >= 16 bits per entry, cache-resident: most lengths that cannot match are rejected without
  // touching the big slot array (the table is memory-bound beyond a few 100k prefixes).
  private filter = new Int32Array(0);
  private filterShift = 32;
  private numericCount = 0;
  private readonly textual = new Map<string, number>();
  private readonly prefixes: string[] = [];
  private readonly values: T[] = [];
  /** Lengths present, longest first. */
  private lengths: number[] = [];
  private maxLength = 0;

  constructor(expectedSize = 16) {
    this.allocate(Math.max(16, 2 ** Math.ceil(Math.log2(expectedSize * 2))));
  }

  get size(): number {
    return this.prefixes.length;
  }

  /** Adds a digits-only prefix; a second add of the same prefix is refused. */
  add(prefix: string, value: T): void {
    if (!/^\d{1,20}$/.test(prefix)) throw new RangeError(`prefix "${prefix}" must be 1-20 digits`);
    const index = this.prefixes.length;
    const len = prefix.length;
    if (len <= MAX_NUMERIC_DIGITS) {
      if ((this.numericCount + 1) * 2 > this.mask + 1) this.grow();
      const key = Number(prefix);
      if (!this.insert((key / TWO_32) | 0, key % TWO_32 | 0, len, index)) throw new RangeError(`duplicate prefix ${prefix}`);
      this.numericCount++;
    } else {
      if (this.textual.has(prefix)) throw new RangeError(`duplicate prefix ${prefix}`);
      this.textual.set(prefix, index);
    }
    this.prefixes.push(prefix);
    this.values.push(value);
    if (!this.lengths.includes(len)) {
      this.lengths.push(len);
      this.lengths.sort((a, b) => b - a);
      this.maxLength = this.lengths[0];
    }
  }

  /** Every prefix and its value, in insertion order. */
  *entries(): IterableIterator<PrefixMatch<T>> {
    for (let i = 0; i < this.prefixes.length; i++) yield { prefix: this.prefixes[i], value: this.values[i] };
  }

  /** The longest prefix of `destination` (digits, an optional leading `+` ignored) in the table. */
  match(destination: string): PrefixMatch<T> | null {
    const start = destination.charCodeAt(0) === 43 /* + */ ? 1 : 0;
    const digits = Math.min(destination.length - start, this.maxLength);
    if (digits <= 0) return null;
    const keys = scratch; // keys[n] = numeric value of the first n digits
    let value = 0;
    const numericDigits = Math.min(digits, MAX_NUMERIC_DIGITS);
    for (let n = 1; n <= numericDigits; n++) {
      const digit = destination.charCodeAt(start + n - 1) - 48;
      if (digit < 0 || digit > 9) return null;
      value = value * 10 + digit;
      keys[n] = value;
    }
    const lengths = this.lengths;
    for (let i = 0; i < lengths.length; i++) {
      const len = lengths[i];
      if (len > digits) continue;
      let index: number;
      if (len <= MAX_NUMERIC_DIGITS) {
        const key = keys[len];
        index = this.find((key / TWO_32) | 0, key % TWO_32 | 0, len);
      } else {
        const text = destination.slice(start, start + len);
        index = /^\d+$/.test(text) ? (this.textual.get(text) ?? EMPTY) : EMPTY;
      }
      if (index !== EMPTY) return { prefix: this.prefixes[index], value: this.values[index] };
    }
    return null;
  }

  private find(hi: number, lo: number, len: number): number {
    const slots = this.slots;
    const mask = this.mask;
    const hash = slotHash(hi, lo, len);
    const bit = Math.imul(hash, 0x2545f491) >>> this.filterShift;
    if ((this.filter[bit >>> 5] & (1 << (bit & 31))) === 0) return EMPTY;
    let slot = hash & mask;
    for (;;) {
      const base = slot << 2;
      const stored = slots[base + 3];
      if (stored === 0) return EMPTY;
      if (slots[base] === lo && slots[base + 1] === hi && slots[base + 2] === len) return stored - 1;
      slot = (slot + 1) & mask;
    }
  }

  private insert(hi: number, lo: number, len: number, index: number): boolean {
    const slots = this.slots;
    const mask = this.mask;
    const hash = slotHash(hi, lo, len);
    let slot = hash & mask;
    for (;;) {
      const base = slot << 2;
      if (slots[base + 3] === 0) {
        const bit = Math.imul(hash, 0x2545f491) >>> this.filterShift;
        this.filter[bit >>> 5] |= 1 << (bit & 31);
        slots[base] = lo;
        slots[base + 1] = hi;
        slots[base + 2] = len;
        slots[base + 3] = index + 1;
        return true;
      }
      if (slots[base] === lo && slots[base + 1] === hi && slots[base + 2] === len) return false;
      slot = (slot + 1) & mask;
    }
  }

  private allocate(capacity: number): void {
    this.slots = new Int32Array(capacity * 4);
    this.mask = capacity - 1;
    const filterBits = Math.min(2 ** 26, capacity * 8); // capacity >= 2 x entries: >= 16 bits per entry
    this.filter = new Int32Array(filterBits / 32);
    this.filterShift = 32 - Math.log2(filterBits);
  }

  private grow(): void {
    const old = this.slots;
    this.allocate((this.mask + 1) * 2);
    for (let base = 0; base < old.length; base += 4) {
      if (old[base + 3] !== 0) this.insert(old[base + 1], old[base], old[base + 2], old[base + 3] - 1);
    }
  }
}

const scratch = new Float64Array(MAX_NUMERIC_DIGITS + 1);
