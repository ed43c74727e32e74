// A deck's rates in memory as columns: the prefix index (lib/rating/prefix-table.ts) maps a prefix to
// a row number, and each term of the rate is a typed array indexed by it. A 500k-prefix card is about
// 25 MiB of typed arrays (off the JS heap) and a handful of objects, where one object, one BigInt and
// one string per prefix took about three times that on the heap, plus a collector that had to walk them.
// Rows are added one at a time (from tuples) or straight from the text a database chunk answers
// (addRecords), so a card is never held as 500k row objects, not even while it loads.
import type { Increment } from "./schemas";
import { PrefixIndex } from "./prefix-table";

const TWO_32 = 4294967296;
/** Marks a null in a micros column; a real value equal to it (int8's minimum) is kept aside. */
const NULL_MICROS = -(2n ** 63n);

/**
 * An integer micros column (int8, exact): a BigInt64Array, whose reads are several times cheaper than
 * BigInt(double). Written from a number without making a BigInt: the two 32-bit halves go through an
 * Int32Array view of the same memory (little-endian, as every platform Node runs on). Nullable columns
 * are allocated on the first non-null value: a deck without connect fees costs nothing for them.
 */
class MicrosColumn {
  private values: BigInt64Array | null = null;
  private halves: Int32Array | null = null;
  /** Rows holding int8's minimum, which the array uses for null. */
  private readonly minimums = new Set<number>();

  constructor(private readonly capacity: number) {}

  set(row: number, value: number | bigint | null): void {
    if (value === null) {
      if (this.values) this.values[row] = NULL_MICROS;
      return;
    }
    if (!this.values) {
      this.values = new BigInt64Array(this.capacity).fill(NULL_MICROS);
      this.halves = new Int32Array(this.values.buffer);
    }
    if (typeof value === "number" && value >= 0) {
      this.halves![row * 2] = (value % TWO_32) | 0;
      this.halves![row * 2 + 1] = (value / TWO_32) | 0;
    } else {
      if (value === NULL_MICROS) this.minimums.add(row);
      this.values[row] = BigInt(value);
    }
  }

  /** The values, null while every row is null. Read through micros() below. */
  get array(): BigInt64Array | null {
    return this.values;
  }

  /** The same memory as 32-bit halves (null tests without making a BigInt). */
  get halfArray(): Int32Array | null {
    return this.halves;
  }

  /** A row holding NULL_MICROS: int8's minimum or null. */
  minimumOrNull(row: number): bigint | null {
    return this.minimums.size !== 0 && this.minimums.has(row) ? NULL_MICROS : null;
  }
}

/** A row of a micros column, read with its arrays at hand (the hot path of every match). */
function micros(
  column: MicrosColumn,
  values: BigInt64Array | null,
  halves: Int32Array | null,
  row: number,
): bigint | null {
  if (values === null) return null;
  // NULL_MICROS is high half 0x80000000, low half 0: tested as two int32 reads, no BigInt made for a null.
  if (halves![row * 2 + 1] === -2147483648 && halves![row * 2] === 0) return column.minimumOrNull(row);
  return values[row];
}

/** Small codes per row (increments, descriptions): a Uint8Array that widens when a code passes 255. */
class CodeColumn {
  private codes: Uint8Array | Uint32Array;

  constructor(capacity: number) {
    this.codes = new Uint8Array(capacity);
  }

  set(row: number, code: number): void {
    if (code > 255 && this.codes instanceof Uint8Array) this.codes = Uint32Array.from(this.codes);
    this.codes[row] = code;
  }

  get array(): Uint8Array | Uint32Array {
    return this.codes;
  }
}

/** The rate that applies to a destination: the longest matching prefix of a card, money in integer micros. */
export interface RateMatch {
  prefix: string;
  rateMicros: bigint;
  increment: Increment;
  description: string | null;
  /** null when the rate has none. */
  connectFeeMicros: bigint | null;
  minChargeMicros: bigint | null;
}

/** A built card: longest-prefix match and the rows in load order. */
export interface RateColumns {
  readonly size: number;
  match(destination: string): RateMatch | null;
  entries(): IterableIterator<RateMatch>;
}

/**
 * Builds a card of at most `capacity` rows (the deck's row count, known before it loads: columns are
 * allocated once, at their final size).
 */
export class RateCardBuilder {
  private readonly index: PrefixIndex;
  private readonly rates: MicrosColumn;
  private readonly connectFees: MicrosColumn;
  private readonly minCharges: MicrosColumn;
  private readonly incrementCodes: CodeColumn;
  private readonly increments: Increment[] = [];
  private readonly incrementByKey = new Map<number, number>();
  /** Description codes (0 = none), allocated with the first description. */
  private descriptionCodes: CodeColumn | null = null;
  private readonly descriptions: (string | null)[] = [null];
  private readonly descriptionByText = new Map<string, number>();

  constructor(private readonly capacity: number) {
    this.index = new PrefixIndex(capacity);
    this.rates = new MicrosColumn(capacity);
    this.connectFees = new MicrosColumn(capacity);
    this.minCharges = new MicrosColumn(capacity);
    this.incrementCodes = new CodeColumn(capacity);
  }

  get size(): number {
    return this.index.size;
  }

  /** Adds one rate; its prefix must be new (1-20 digits). */
  add(
    prefix: string,
    rateMicros: bigint | number,
    min: number,
    interval: number,
    description: string | null,
    connectFee: bigint | number | null,
    minCharge: bigint | number | null,
  ): void {
    this.setRow(this.index.add(prefix), rateMicros, min, interval, description, connectFee, minCharge);
  }

  /**
   * Adds the rows of one chunk as the database answers them: records `prefix,rate,min,interval,connectFee,minCharge`
   * separated by newlines (an empty fee is none), integers in micros, and the records' descriptions
   * in the same order (null: none in this chunk). Returns the last record's prefix (the next chunk's
   * keyset position); null when the text is empty.
   */
  addRecords(text: string, descriptions: (string | null)[] | null): string | null {
    let pos = 0;
    let record = 0;
    let lastStart = 0;
    let lastEnd = 0;
    const end = text.length;
    while (pos < end) {
      const prefixEnd = fieldEnd(text, pos);
      lastStart = pos;
      lastEnd = prefixEnd;
      const row = this.index.addDigits(text, pos, prefixEnd);
      pos = prefixEnd + 1;
      const rateEnd = fieldEnd(text, pos);
      const rate = parseInteger(text, pos, rateEnd);
      pos = rateEnd + 1;
      const minEnd = fieldEnd(text, pos);
      const min = parseInteger(text, pos, minEnd);
      pos = minEnd + 1;
      const intervalEnd = fieldEnd(text, pos);
      const interval = parseInteger(text, pos, intervalEnd);
      pos = intervalEnd + 1;
      const feeEnd = fieldEnd(text, pos);
      const fee = feeEnd === pos ? null : parseInteger(text, pos, feeEnd);
      pos = feeEnd + 1;
      const chargeEnd = recordEnd(text, pos);
      const charge = chargeEnd === pos ? null : parseInteger(text, pos, chargeEnd);
      pos = chargeEnd + 1;
      if (rate === null || typeof min !== "number" || typeof interval !== "number")
        throw new RangeError(`malformed rate record at ${lastStart}`);
      this.setRow(row, rate, min, interval, descriptions?.[record] ?? null, fee, charge);
      record++;
    }
    if (descriptions && descriptions.length !== record)
      throw new RangeError(`${descriptions.length} descriptions for ${record} rates`);
    return record === 0 ? null : text.slice(lastStart, lastEnd);
  }

  build(): RateColumns {
    const { index, rates, connectFees, minCharges, incrementCodes, increments, descriptionCodes, descriptions } = this;
    // The arrays are final once built (a builder is not used after build()).
    const rateValues = rates.array;
    const rateHalves = rates.halfArray;
    const feeValues = connectFees.array;
    const feeHalves = connectFees.halfArray;
    const chargeValues = minCharges.array;
    const chargeHalves = minCharges.halfArray;
    const incrementOf = incrementCodes.array;
    const descriptionOf = descriptionCodes?.array ?? null;
    const matchOf = (prefix: string, row: number): RateMatch => ({
      prefix,
      rateMicros: micros(rates, rateValues, rateHalves, row)!,
      increment: increments[incrementOf[row]],
      description: descriptionOf === null ? null : descriptions[descriptionOf[row]],
      connectFeeMicros: micros(connectFees, feeValues, feeHalves, row),
      minChargeMicros: micros(minCharges, chargeValues, chargeHalves, row),
    });
    return {
      size: index.size,
      match(destination) {
        const row = index.find(destination);
        if (row < 0) return null;
        const start = destination.charCodeAt(0) === 43 /* + */ ? 1 : 0;
        return matchOf(destination.slice(start, start + index.matchLength), row);
      },
      *entries() {
        const prefixes = index.prefixes();
        for (let row = 0; row < prefixes.length; row++) yield matchOf(prefixes[row], row);
      },
    };
  }

  private setRow(
    row: number,
    rate: bigint | number,
    min: number,
    interval: number,
    description: string | null,
    fee: bigint | number | null,
    charge: bigint | number | null,
  ): void {
    if (row >= this.capacity) throw new RangeError(`more than the ${this.capacity} rates the card was sized for`);
    this.rates.set(row, rate);
    this.connectFees.set(row, fee);
    this.minCharges.set(row, charge);
    // min and interval are small positive integers (schema: 1..3600 or so): one number keys the pair.
    const key = min * 1_048_576 + interval;
    let code = this.incrementByKey.get(key);
    if (code === undefined) {
      code = this.increments.length;
      this.increments.push({ min, interval });
      this.incrementByKey.set(key, code);
    }
    this.incrementCodes.set(row, code);
    if (description !== null) {
      let d = this.descriptionByText.get(description);
      if (d === undefined) {
        d = this.descriptions.length;
        this.descriptions.push(description);
        this.descriptionByText.set(description, d);
      }
      (this.descriptionCodes ??= new CodeColumn(this.capacity)).set(row, d);
    }
  }
}

function fieldEnd(text: string, from: number): number {
  const i = text.indexOf(",", from);
  if (i < 0) throw new RangeError(`malformed rate record at ${from}`);
  return i;
}

function recordEnd(text: string, from: number): number {
  const i = text.indexOf("\n", from);
  return i < 0 ? text.length : i;
}

/** A decimal integer of text[start, end): a number when it fits a double exactly, else a bigint. null: not an integer. */
function parseInteger(text: string, start: number, end: number): number | bigint | null {
  let i = start;
  const negative = text.charCodeAt(i) === 45; /* - */
  if (negative) i++;
  if (i >= end) return null;
  if (end - i > 15) {
    const slice = text.slice(start, end);
    return /^-?\d+$/.test(slice) ? BigInt(slice) : null;
  }
  let value = 0;
  for (; i < end; i++) {
    const digit = text.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) return null;
    value = value * 10 + digit;
  }
  return negative ? -value : value;
}
