import type { Transporter } from "nodemailer";
import { mailFrom, smtpUrl } from "@/lib/config/env";
import { processSingleton } from "@/lib/runtime/process-singleton";

export interface MailMessage {
  to: string;
  subject: string;
  /** Plain text: every message the portal sends is a sentence and a link. */
  text: string;
  /** Files sent with it (an invoice's PDF). */
  attachments?: { filename: string; content: Uint8Array; contentType: string }[];
  /** The From's display name in place of MAIL_FROM's (a reseller's invoice mail); the address stays MAIL_FROM's. */
  fromName?: string;
}

/** MAIL_FROM, or its address under another display name (nodemailer encodes the name; line breaks cannot pass). */
export function fromHeader(fromName?: string): string | { name: string; address: string } {
  const configured = mailFrom();
  if (!fromName) return configured;
  const address = /<([^>]+)>/.exec(configured)?.[1] ?? configured.trim();
  return { name: fromName.replace(/[\r\n]+/g, " ").trim(), address };
}

// nodemailer is loaded with the first message sent over SMTP, not with every module that may queue mail: a server
// that sends none never holds it (README "Memory").
const transport = () =>
  processSingleton("mail-transport", async (): Promise<Transporter | null> => {
    const url = smtpUrl();
    if (!url) return null;
    const { default: nodemailer } = await import("nodemailer");
    return nodemailer.createTransport(url);
  });

/**
 * Sends one message over SMTP (`SMTP_URL`). Without it the message is printed to the server's log instead, so a
 * development server's links (verification, reset, invitation) can be followed from the terminal.
 */
export async function sendMail(message: MailMessage): Promise<void> {
  const smtp = await transport();
  if (!smtp) {
    const files = message.attachments?.length
      ? `\n(attached: ${message.attachments.map((a) => a.filename).join(", ")})`
      : "";
    const from = message.fromName ? ` from ${message.fromName}` : "";
    console.log(`[mail] to ${message.to}${from}: ${message.subject}\n${message.text}${files}`);
    return;
  }
  await smtp.sendMail({
    from: fromHeader(message.fromName),
    to: message.to,
    subject: message.subject,
    text: message.text,
    attachments: message.attachments?.map((a) => ({
      filename: a.filename,
      content: Buffer.from(a.content),
      contentType: a.contentType,
    })),
  });
}
