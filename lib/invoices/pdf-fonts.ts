import fs from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import type { Fontkit, Font as FontkitFont } from "pdf-lib/cjs/types/fontkit";

// The fonts an invoice PDF embeds for text the standard Helvetica cannot encode (WinAnsi): Noto Sans (Latin
// beyond Latin-1, Greek, Cyrillic), Noto Sans Hebrew, Noto Sans Arabic and Noto Sans JP (kana, kanji), all SIL OFL
// 1.1 TrueType files from the @expo-google-fonts packages. Read from node_modules only when a PDF needs one (Noto
// Sans JP is 5 MiB a face), then kept for the process; a PDF embeds a subset of the glyphs it draws.

export type FontFace = "regular" | "bold";

export interface ScriptFont {
  key: string;
  package: string;
  files: Record<FontFace, string>;
  /** Code points this font is tried first for (before the others, in this list's order). */
  first: RegExp;
}

export const SCRIPT_FONTS: readonly ScriptFont[] = [
  {
    key: "NotoSans",
    package: "@expo-google-fonts/noto-sans",
    files: { regular: "400Regular/NotoSans_400Regular.ttf", bold: "700Bold/NotoSans_700Bold.ttf" },
    first: /[\p{Script=Latin}\p{Script=Greek}\p{Script=Cyrillic}]/u,
  },
  {
    key: "NotoSansHebrew",
    package: "@expo-google-fonts/noto-sans-hebrew",
    files: { regular: "400Regular/NotoSansHebrew_400Regular.ttf", bold: "700Bold/NotoSansHebrew_700Bold.ttf" },
    first: /\p{Script=Hebrew}/u,
  },
  {
    key: "NotoSansArabic",
    package: "@expo-google-fonts/noto-sans-arabic",
    files: { regular: "400Regular/NotoSansArabic_400Regular.ttf", bold: "700Bold/NotoSansArabic_700Bold.ttf" },
    first: /\p{Script_Extensions=Arabic}/u,
  },
  {
    key: "NotoSansJP",
    package: "@expo-google-fonts/noto-sans-jp",
    files: { regular: "400Regular/NotoSansJP_400Regular.ttf", bold: "700Bold/NotoSansJP_700Bold.ttf" },
    first: /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\u3000-\u303f\uff00-\uffef]/u,
  },
];

const loaded = new Map<string, Promise<Uint8Array>>();
let fontkitModule: Promise<Fontkit> | null = null;

function fontFile(font: ScriptFont, face: FontFace): string {
  // Resolved from the project's node_modules at run time: never bundled (the server build keeps them as files).
  const require = createRequire(path.join(/*turbopackIgnore: true*/ process.cwd(), "package.json"));
  return require.resolve(`${font.package}/${font.files[face]}`);
}

/** The font file's bytes, read once per process. */
export function fontBytes(font: ScriptFont, face: FontFace): Promise<Uint8Array> {
  const id = `${font.key}:${face}`;
  let bytes = loaded.get(id);
  if (!bytes) {
    bytes = fs.readFile(fontFile(font, face)).then((b) => new Uint8Array(b.buffer, b.byteOffset, b.byteLength));
    bytes.catch(() => loaded.delete(id));
    loaded.set(id, bytes);
  }
  return bytes;
}

/**
 * fontkit for pdf-lib, loaded on first use. A font file is parsed once per process (pdf-lib would parse it for every
 * document: 0.3 s for Noto Sans JP); each document still makes its own subset. Its TrueType subsetter writes a short `loca` table (offsets halved) when
 * the subset is small, and a glyph of odd length then shifts every later glyph by a byte (Noto Sans JP's kana came
 * out blank): each glyph is padded to an even length, as the format requires.
 */
export function loadFontkit(): Promise<Fontkit> {
  fontkitModule ??= import("@pdf-lib/fontkit").then((m) => {
    const fontkit = ((m as { default?: Fontkit }).default ?? m) as Fontkit;
    const parsed = new WeakMap<Uint8Array, FontkitFont>();
    return {
      create(buffer: Uint8Array, postscriptName?: string) {
        let font = parsed.get(buffer);
        if (!font) {
          font = fontkit.create(buffer, postscriptName);
          const createSubset = font.createSubset.bind(font);
          font.createSubset = () => padGlyphs(createSubset());
          parsed.set(buffer, font);
        }
        return font;
      },
    };
  });
  return fontkitModule;
}

interface TtfSubsetInternals {
  _addGlyph?: (gid: number) => number;
  glyf?: Uint8Array[];
  offset?: number;
}

function padGlyphs<T>(subset: T): T {
  const s = subset as T & TtfSubsetInternals;
  const addGlyph = s._addGlyph?.bind(s);
  if (!addGlyph) return subset; // a CFF subset: no loca table
  s._addGlyph = (gid: number) => {
    const index = addGlyph(gid);
    const data = s.glyf![index];
    if (data.length % 2 === 1) {
      // Of fontkit's own Buffer class: its stream accepts no other.
      const padded = (data.constructor as unknown as { alloc(size: number): Uint8Array }).alloc(data.length + 1);
      padded.set(data);
      s.glyf![index] = padded;
      s.offset! += 1;
    }
    return index;
  };
  return subset;
}

/** Whether the font has a glyph for the code point (the regular face's cmap; the bold one covers the same). */
export async function covers(font: ScriptFont, codePoint: number): Promise<boolean> {
  const fontkit = await loadFontkit();
  return fontkit.create(await fontBytes(font, "regular")).hasGlyphForCodePoint(codePoint);
}

/** The fonts to try for a code point, the one made for its script first. */
export function candidates(codePoint: number): ScriptFont[] {
  const ch = String.fromCodePoint(codePoint);
  const preferred = SCRIPT_FONTS.filter((f) => f.first.test(ch));
  return [...preferred, ...SCRIPT_FONTS.filter((f) => !preferred.includes(f))];
}
