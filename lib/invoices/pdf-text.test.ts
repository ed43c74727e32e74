import { describe, expect, it } from "vitest";
import { SCRIPT_FONTS } from "./pdf-fonts";
import { bidiLevels, visualRuns } from "./pdf-text";

const [latin, hebrew] = SCRIPT_FONTS;
// Helvetica for ASCII, the Hebrew font for Hebrew letters, Noto Sans for the rest.
const fontOf = (ch: string) => (ch.charCodeAt(0) < 128 ? null : /\p{Script=Hebrew}/u.test(ch) ? hebrew : latin);
const show = (text: string) => visualRuns(text, fontOf).map((r) => `${r.font?.key ?? "H"}:${r.text}`);

describe("a line's visual runs", () => {
  it("keeps left-to-right text in one run", () => {
    expect(show("Acme Müller & Søn")).toEqual(["H:Acme M", "NotoSans:ü", "H:ller & S", "NotoSans:ø", "H:n"]);
  });

  it("orders a right-to-left paragraph from the right: words reversed, a number left to right", () => {
    // Logical: shalom, space, olam, space, 2024. Visual from the left: 2024, space, olam, space, shalom (each Hebrew
    // run is handed to fontkit in logical order: it reverses the glyphs).
    expect(bidiLevels(Array.from("שלום עולם 2024"))).toEqual([1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2]);
    expect(show("שלום עולם 2024")).toEqual(["H:2024", "H: ", "NotoSansHebrew:עולם", "H: ", "NotoSansHebrew:שלום"]);
  });

  it("reverses only the right-to-left words inside left-to-right text", () => {
    expect(show("Acme שלום עולם Ltd")).toEqual([
      "H:Acme ",
      "NotoSansHebrew:עולם",
      "H: ",
      "NotoSansHebrew:שלום",
      "H: Ltd",
    ]);
  });

  it("mirrors brackets around right-to-left text", () => {
    expect(show("(שלום)")).toEqual(["H:(", "NotoSansHebrew:שלום", "H:)"]);
    // Visual "(1) shalom": the number at a higher level, the neutrals around it reversed and mirrored.
    expect(show("שלום (1)")).toEqual(["H:(", "H:1", "H:) ", "NotoSansHebrew:שלום"]);
  });

  it("keeps a number in Arabic-Indic digits left to right", () => {
    const arabic = SCRIPT_FONTS.find((f) => f.key === "NotoSansArabic")!;
    const runs = visualRuns("شركة ٢٠٢٤", (ch) => (ch === " " ? null : arabic));
    // fontkit lays out any run in Arabic script right to left: the digits go in reversed, to come out as written.
    expect(runs.map((r) => r.text)).toEqual(["٤٢٠٢", " ", "شركة"]);
  });

  it("prints a character no font has as ?", () => {
    expect(visualRuns("A서B", (ch) => (ch === "서" ? undefined : null))).toEqual([{ text: "A?B", font: null }]);
  });
});
