/**
 * What FreeSWITCH's switch_url_encode makes of a text, for tests of `encode=true` posts (cdr-body.ts): every
 * byte outside printable ASCII and every character of its unsafe set becomes `%XX` (uppercase hex), except a
 * `%` that already starts a `%XX` with uppercase hex digits, which it leaves as it is.
 */
const UNSAFE = '\r\n #%&+:;<=>?@[\\]^`{|}"';
const HEX_PAIR = /^[0-9A-F]{2}$/;

export function switchUrlEncode(text: string): string {
  const bytes = Buffer.from(text, "utf8");
  let out = "";
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i];
    const char = String.fromCharCode(byte);
    const keptEscape = char === "%" && HEX_PAIR.test(bytes.subarray(i + 1, i + 3).toString("latin1"));
    if (!keptEscape && (byte < 0x20 || byte > 0x7e || UNSAFE.includes(char))) {
      out += `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
    } else {
      out += char;
    }
  }
  return out;
}
