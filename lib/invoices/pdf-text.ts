import { StandardFonts, type PDFDocument, type PDFFont, type PDFPage, type RGB } from "pdf-lib";
import { candidates, covers, fontBytes, loadFontkit, type FontFace, type ScriptFont } from "./pdf-fonts";

// Text of an invoice PDF in any script its fonts cover: each character is drawn with Helvetica (a standard font:
// nothing embedded) when WinAnsi encodes it, else with the first Noto font that has it (pdf-fonts.ts), else as "?".
// Right-to-left text (Hebrew, Arabic) is put in visual order by a reduced Unicode bidi algorithm (below), and fontkit
// lays out each right-to-left run (reversed glyphs; Arabic joining forms through the font's GSUB table).

/** A piece of a line drawn with one font, in visual (left to right) order. */
export interface Run {
  text: string;
  /** null: Helvetica. */
  font: ScriptFont | null;
}

type BidiClass = "L" | "R" | "EN" | "N";

const RTL_LETTER = /[\p{Script=Hebrew}\p{Script=Arabic}]/u;
const MIRRORED: Record<string, string> = {
  "(": ")",
  ")": "(",
  "[": "]",
  "]": "[",
  "{": "}",
  "}": "{",
  "<": ">",
  ">": "<",
  "«": "»",
  "»": "«",
};

function bidiClass(ch: string): BidiClass {
  if (/\p{Nd}/u.test(ch)) return "EN";
  if (RTL_LETTER.test(ch)) return "R";
  if (/[\p{Z}\p{P}\p{S}\p{M}\p{C}\s]/u.test(ch)) return "N";
  return "L";
}

/**
 * Embedding levels of a single-paragraph line (UAX #9 reduced: no explicit embeddings or isolates; W7 turns a number
 * after left-to-right text left-to-right; N1/N2 give neutrals their surrounding direction, else the paragraph's; a
 * combining mark takes its base's level). The paragraph's direction is its first strong character's (P2/P3).
 */
export function bidiLevels(chars: readonly string[]): number[] {
  const classes = chars.map(bidiClass);
  for (let i = 0; i < chars.length; i++)
    if (/\p{M}/u.test(chars[i]) && i > 0) classes[i] = classes[i - 1] === "N" ? "N" : classes[i - 1];
  const firstStrong = classes.find((c) => c === "L" || c === "R");
  const paragraph: "L" | "R" = firstStrong === "R" ? "R" : "L";
  // W7: a number whose last strong character before it (or the paragraph) is L is L.
  let lastStrong: "L" | "R" = paragraph;
  for (let i = 0; i < classes.length; i++) {
    if (classes[i] === "L" || classes[i] === "R") lastStrong = classes[i] as "L" | "R";
    else if (classes[i] === "EN" && lastStrong === "L") classes[i] = "L";
  }
  // N1/N2: a run of neutrals between two characters of one direction (numbers count as R) takes it.
  const direction = (c: BidiClass | undefined): "L" | "R" => (c === undefined ? paragraph : c === "L" ? "L" : "R");
  for (let i = 0; i < classes.length;) {
    if (classes[i] !== "N") {
      i++;
      continue;
    }
    let j = i;
    while (j < classes.length && classes[j] === "N") j++;
    const before = direction(classes[i - 1]);
    const after = direction(classes[j]);
    const resolved = before === after ? before : paragraph;
    for (let k = i; k < j; k++) classes[k] = resolved;
    i = j;
  }
  const base = paragraph === "R" ? 1 : 0;
  return classes.map((c) => {
    if (base === 0) return c === "L" ? 0 : c === "R" ? 1 : 2;
    return c === "R" ? 1 : 2;
  });
}

/**
 * The runs of a line in visual order: characters split by font and level, run order reversed per UAX #9 L2. A
 * right-to-left run with Hebrew or Arabic letters is passed in logical order (fontkit reverses and shapes it); any
 * other right-to-left run (punctuation between right-to-left words) is reversed here, brackets mirrored; a number
 * in Arabic-Indic digits is passed reversed (fontkit reverses it back).
 */
export function visualRuns(text: string, fontOf: (ch: string) => ScriptFont | null | undefined): Run[] {
  const chars: string[] = [];
  const fonts: (ScriptFont | null)[] = [];
  for (const ch of text.normalize("NFC")) {
    const font = fontOf(ch);
    chars.push(font === undefined ? "?" : ch);
    fonts.push(font ?? null);
  }
  const levels = bidiLevels(chars);
  const runs: { text: string; font: ScriptFont | null; level: number }[] = [];
  for (let i = 0; i < chars.length; i++) {
    const last = runs[runs.length - 1];
    if (last && last.font === fonts[i] && last.level === levels[i]) last.text += chars[i];
    else runs.push({ text: chars[i], font: fonts[i], level: levels[i] });
  }
  const max = Math.max(0, ...runs.map((r) => r.level));
  const lowestOdd = runs.some((r) => r.level % 2 === 1) ? 1 : 2;
  for (let level = max; level >= lowestOdd; level--) {
    for (let i = 0; i < runs.length;) {
      if (runs[i].level < level) {
        i++;
        continue;
      }
      let j = i;
      while (j < runs.length && runs[j].level >= level) j++;
      const reversed = runs.slice(i, j).reverse();
      runs.splice(i, j - i, ...reversed);
      i = j;
    }
  }
  return runs.map((r) => {
    const rtl = r.level % 2 === 1;
    // fontkit lays out a run with Hebrew or Arabic characters right to left, whatever its level: a left-to-right run
    // of Arabic-Indic digits is handed over reversed so that it comes out in reading order.
    const fontReverses = RTL_LETTER.test(r.text);
    if (rtl === fontReverses) return { text: r.text, font: r.font };
    const chars = Array.from(r.text).reverse();
    return { text: (rtl ? chars.map((ch) => MIRRORED[ch] ?? ch) : chars).join(""), font: r.font };
  });
}

export interface DrawOptions {
  size: number;
  bold: boolean;
  color: RGB;
}

/**
 * The fonts of one PDF document: Helvetica and Helvetica-Bold always, a Noto font (a subset) only once a text
 * drawn needs it. prepare() embeds what the given texts need (embedding is asynchronous); drawing and measuring are
 * synchronous and print "?" for a character no prepared font has.
 */
export class PdfText {
  private readonly embedded = new Map<string, PDFFont>();
  private readonly pick = new Map<string, ScriptFont | null>();

  private constructor(
    private readonly doc: PDFDocument,
    readonly regular: PDFFont,
    readonly bold: PDFFont,
    private readonly encodable: Set<number>,
  ) {}

  static async create(doc: PDFDocument): Promise<PdfText> {
    const regular = await doc.embedFont(StandardFonts.Helvetica);
    const bold = await doc.embedFont(StandardFonts.HelveticaBold);
    return new PdfText(doc, regular, bold, new Set(regular.getCharacterSet()));
  }

  /** Embeds the fonts `texts` need in their face (call before drawing them). */
  async prepare(texts: readonly { text: string; bold: boolean }[]): Promise<void> {
    for (const { text, bold } of texts) {
      for (const ch of new Set(text.normalize("NFC"))) {
        if (this.encodable.has(ch.codePointAt(0)!)) continue;
        if (!this.pick.has(ch)) this.pick.set(ch, await this.findFont(ch.codePointAt(0)!));
        const font = this.pick.get(ch);
        if (font) await this.embed(font, bold ? "bold" : "regular");
      }
    }
  }

  private async findFont(codePoint: number): Promise<ScriptFont | null> {
    // Controls and unassigned code points would only draw a missing-glyph box.
    if (/[\p{C}]/u.test(String.fromCodePoint(codePoint))) return null;
    for (const font of candidates(codePoint)) if (await covers(font, codePoint)) return font;
    return null;
  }

  private async embed(font: ScriptFont, face: FontFace): Promise<void> {
    const id = `${font.key}:${face}`;
    if (this.embedded.has(id)) return;
    this.doc.registerFontkit(await loadFontkit());
    // A fixed subset tag (PDF 32000 9.6.4): the same document renders the same bytes.
    const tag = subsetTag(id);
    const name = `${tag}+${font.key}-${face === "bold" ? "Bold" : "Regular"}`;
    this.embedded.set(id, await this.doc.embedFont(await fontBytes(font, face), { subset: true, customName: name }));
  }

  private fontFor(font: ScriptFont | null, bold: boolean): PDFFont {
    if (font === null) return bold ? this.bold : this.regular;
    return this.embedded.get(`${font.key}:${bold ? "bold" : "regular"}`)!;
  }

  /** The runs of a line, a character without a prepared font as "?". */
  runs(text: string, bold: boolean): { text: string; font: PDFFont }[] {
    const face = bold ? "bold" : "regular";
    return visualRuns(text, (ch) => {
      if (this.encodable.has(ch.codePointAt(0)!)) return null;
      const font = this.pick.get(ch);
      return font && this.embedded.has(`${font.key}:${face}`) ? font : undefined;
    }).map((r) => ({ text: r.text, font: this.fontFor(r.font, bold) }));
  }

  width(text: string, size: number, bold = false): number {
    return this.runs(text, bold).reduce((sum, r) => sum + r.font.widthOfTextAtSize(r.text, size), 0);
  }

  draw(page: PDFPage, text: string, x: number, y: number, options: DrawOptions): void {
    let at = x;
    for (const run of this.runs(text, options.bold)) {
      page.drawText(run.text, { x: at, y, size: options.size, font: run.font, color: options.color });
      at += run.font.widthOfTextAtSize(run.text, options.size);
    }
  }

  /** Text cut to `width` points, with an ellipsis. */
  fit(text: string, width: number, size: number, bold = false): string {
    if (this.width(text, size, bold) <= width) return text;
    const chars = Array.from(text);
    while (chars.length > 1 && this.width(`${chars.join("")}...`, size, bold) > width) chars.pop();
    return `${chars.join("")}...`;
  }

  /**
   * The lines of `text` at most `width` points wide: broken after spaces, between CJK characters, and inside a word
   * only when the word alone is wider than a line.
   */
  wrap(text: string, width: number, size: number, bold = false): string[] {
    const words =
      text
        .normalize("NFC")
        .match(
          /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]|[^\s\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]*\s*/gu,
        ) ?? [];
    const lines: string[] = [];
    let line = "";
    for (const word of words.filter((w) => w !== "")) {
      if (this.width((line + word).trimEnd(), size, bold) <= width) {
        line += word;
        continue;
      }
      if (line.trim() !== "") lines.push(line.trimEnd());
      line = "";
      // A word wider than a line: cut it where it no longer fits.
      let rest = word;
      while (this.width(rest.trimEnd(), size, bold) > width) {
        const chars = Array.from(rest);
        let n = chars.length - 1;
        while (n > 1 && this.width(chars.slice(0, n).join(""), size, bold) > width) n--;
        lines.push(chars.slice(0, n).join(""));
        rest = chars.slice(n).join("");
      }
      line = rest;
    }
    if (line.trim() !== "" || lines.length === 0) lines.push(line.trimEnd());
    return lines;
  }
}

/** Six capital letters from a name (a subset's tag). */
function subsetTag(name: string): string {
  let h = 2166136261;
  for (const ch of name) h = Math.imul(h ^ ch.charCodeAt(0), 16777619) >>> 0;
  let tag = "";
  for (let i = 0; i < 6; i++) {
    tag += String.fromCharCode(65 + (h % 26));
    h = Math.floor(h / 26) + i * 7919;
  }
  return tag;
}
