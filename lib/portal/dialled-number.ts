// Numbers as people paste them ("+44 20 7946 0000", "(212) 555-0100", "44.20.7946.0000"): the portal's number
// fields read the digits and an optional leading + and drop the separators people write between them. The /v1 API
// stays strict (digits, optional +; docs/contract.md §4): the portal sends the digits it read.

/** Separators written between a number's digits: spaces (also no-break and thin), dashes, dots, parentheses, slashes. */
const SEPARATORS = /[\s\u00a0\u2009\u202f\-\u2010-\u2015.()/]/g;

/**
 * The number a person typed, without its separators: `+44 20 7946 0000` -> `+442079460000`. Anything else (letters,
 * a + after the first digit) is kept, so the field's own check refuses it and says why.
 */
export function dialledNumber(text: string): string {
  return text.replace(SEPARATORS, "");
}
