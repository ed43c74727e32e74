import fs from "node:fs";
import path from "node:path";
import { startSmtpSink } from "@/lib/testing/smtp-sink";

/** Every message the portal sends over SMTP_URL in the e2e suite, written to `dir` as `<n>.eml`. */
export async function startMailbox(dir: string): Promise<{ url: string; close: () => Promise<void> }> {
  let count = 0;
  return startSmtpSink((raw) => fs.writeFileSync(path.join(dir, `${String(++count).padStart(4, "0")}.eml`), raw));
}

/** A received message's recipients, subject and text (quoted-printable undone). */
export interface ReceivedMail {
  to: string;
  /** The From header as sent (a reseller's customers hear from the reseller: its name, MAIL_FROM's address). */
  from: string;
  subject: string;
  text: string;
}

function decodeQuotedPrintable(body: string): string {
  return Buffer.from(
    body.replace(/=\r?\n/g, "").replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))),
    "latin1",
  ).toString("utf8");
}

/** Every message in the mailbox directory, oldest first. */
export function readMailbox(dir: string): ReceivedMail[] {
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith(".eml"))
    .sort()
    .map((f) => {
      const raw = fs.readFileSync(path.join(dir, f), "utf8");
      const split = raw.indexOf("\r\n\r\n");
      const head = raw.slice(0, split).replace(/\r\n[ \t]+/g, " ");
      const header = (name: string) => new RegExp(`^${name}: (.*)$`, "im").exec(head)?.[1]?.trim() ?? "";
      const body = raw.slice(split + 4);
      const text = /quoted-printable/i.test(header("Content-Transfer-Encoding")) ? decodeQuotedPrintable(body) : body;
      return { to: header("To"), from: header("From"), subject: header("Subject"), text };
    });
}
