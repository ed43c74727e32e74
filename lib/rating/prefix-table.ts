// Longest-prefix match over a rate card. Each prefix of up to 15 digits is keyed by (length, numeric
// value) in an open-addressing hash table held in typed arrays: no per-entry objects, no strings, no
// string hashing, and keys beyond 2^31 stay cheap (a Map would box them). Longer prefixes (rare) live
// in a Map keyed by text. A lookup walks the destination's digits once, building each candidate key
// incrementally, and probes only the lengths present, longest first.
//
// The table maps a prefix to its insertion index (0, 1, ...): the card keeps its rates in columns
// indexed the same way (lib/rating/rate-card.ts), so a 500k-prefix card is a few typed arrays and
// no per-prefix JS objects. The prefix text itself is not kept: a match is a slice of the destination.

const MAX_NUMERIC_DIGITS = 15;
const MAX_DIGITS = 20;
const TWO_32 = 4294967296;
const NONE = -1;

function slotHash(hi: number, lo: number, len: number): number {
  let h = Math.imul(lo ^ Math.imul(hi, 0x9e3779b1) ^ Math.imul(len, 0x85ebca6b), 0x27d4eb2d);
  h ^= h >>> 15;
  return Math.imul(h, 0x165667b1) ^ (h >>> 13);
}

export class PrefixIndex {
  // One slot = 4 int32 [lo, hi, len, index + 1] (0 = empty): a probe touches one cache line.
  private slots = new Int32Array(0);
  private mask = 0;
  // >= 16 bits per entry, cache-resident: most lengths that cannot match are rejected without
  // touching the big slot array (the table is memory-bound beyond a few 100k prefixes).
  private filter = new Int32Array(0);
  private filterShift = 32;
  private numericCount = 0;
  private count = 0;
  private readonly textual = new Map<string, number>();
  /** Lengths present, longest first. */
  private lengths: number[] = [];
  private lengthSeen = 0; // bit n: a prefix of n digits exists
  private maxLength = 0;
  /** Digits of the last successful find (its prefix is the destination's first matchLength digits). */
  matchLength = 0;

  constructor(expectedSize = 16) {
    this.allocate(Math.max(16, 2 ** Math.ceil(Math.log2(expectedSize * 2))));
  }

  get size(): number {
    return this.count;
  }

  /** Adds a digits-only prefix as the next index; a second add of the same prefix is refused. */
  add(prefix: string): number {
    return this.addDigits(prefix, 0, prefix.length);
  }

  /** Adds text.slice(start, end) (digits only, 1-20) without making the substring. Returns its index. */
  addDigits(text: string, start: number, end: number): number {
    const len = end - start;
    if (len < 1 || len > MAX_DIGITS) throw new RangeError(`prefix "${text.slice(start, end)}" must be 1-20 digits`);
    const index = this.count;
    if (len <= MAX_NUMERIC_DIGITS) {
      let key = 0;
      for (let i = start; i < end; i++) {
        const digit = text.charCodeAt(i) - 48;
        if (digit < 0 || digit > 9) throw new RangeError(`prefix "${text.slice(start, end)}" must be 1-20 digits`);
        key = key * 10 + digit;
      }
      if ((this.numericCount + 1) * 2 > this.mask + 1) this.grow();
      if (!this.insert((key / TWO_32) | 0, (key % TWO_32) | 0, len, index))
        throw new RangeError(`duplicate prefix ${text.slice(start, end)}`);
      this.numericCount++;
    } else {
      const prefix = text.slice(start, end);
      if (!/^\d+$/.test(prefix)) throw new RangeError(`prefix "${prefix}" must be 1-20 digits`);
      if (this.textual.has(prefix)) throw new RangeError(`duplicate prefix ${prefix}`);
      this.textual.set(prefix, index);
    }
    this.count++;
    if ((this.lengthSeen & (1 << len)) === 0) {
      this.lengthSeen |= 1 << len;
      this.lengths.push(len);
      this.lengths.sort((a, b) => b - a);
      this.maxLength = this.lengths[0];
    }
    return index;
  }

  /**
   * The index of the longest prefix of `destination` (digits, an optional leading `+` ignored) in
   * the table, -1 when none; its length is then in matchLength.
   */
  find(destination: string): number {
    const start = destination.charCodeAt(0) === 43 /* + */ ? 1 : 0;
    const digits = Math.min(destination.length - start, this.maxLength);
    if (digits <= 0) return NONE;
    const keys = scratch; // keys[n] = numeric value of the first n digits
    let value = 0;
    const numericDigits = Math.min(digits, MAX_NUMERIC_DIGITS);
    for (let n = 1; n <= numericDigits; n++) {
      const digit = destination.charCodeAt(start + n - 1) - 48;
      if (digit < 0 || digit > 9) return NONE;
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
        index = this.lookup((key / TWO_32) | 0, (key % TWO_32) | 0, len);
      } else {
        const text = destination.slice(start, start + len);
        index = /^\d+$/.test(text) ? (this.textual.get(text) ?? NONE) : NONE;
      }
      if (index !== NONE) {
        this.matchLength = len;
        return index;
      }
    }
    return NONE;
  }

  /**
   * Every prefix's text by index (index order). Rebuilt from the slots on each call, for the rare
   * readers of a whole card (deck diffs): the table itself keeps no strings.
   */
  prefixes(): string[] {
    const out = new Array<string>(this.count);
    const slots = this.slots;
    for (let base = 0; base < slots.length; base += 4) {
      const stored = slots[base + 3];
      if (stored === 0) continue;
      const key = (slots[base + 1] >>> 0) * TWO_32 + (slots[base] >>> 0);
      out[stored - 1] = String(key).padStart(slots[base + 2], "0");
    }
    for (const [prefix, index] of this.textual) out[index] = prefix;
    return out;
  }

  private lookup(hi: number, lo: number, len: number): number {
    const slots = this.slots;
    const mask = this.mask;
    const hash = slotHash(hi, lo, len);
    const bit = Math.imul(hash, 0x2545f491) >>> this.filterShift;
    if ((this.filter[bit >>> 5] & (1 << (bit & 31))) === 0) return NONE;
    let slot = hash & mask;
    for (;;) {
      const base = slot << 2;
      const stored = slots[base + 3];
      if (stored === 0) return NONE;
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
