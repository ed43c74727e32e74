import nodemailer, { type Transporter } from "nodemailer";
import { mailFrom, smtpUrl } from "@/lib/config/env";
import { processSingleton } from "@/lib/runtime/process-singleton";

export interface MailMessage {
  to: string;
  subject: string;
  /** Plain text: every message the portal sends is a sentence and a link. */
  text: string;
}

const transport = () =>
  processSingleton("mail-transport", (): Transporter | null => {
    const url = smtpUrl();
    return url ? nodemailer.createTransport(url) : null;
  });

/**
 * Sends one message over SMTP (`SMTP_URL`). Without it the message is printed to the server's log instead, so a
 * development server's links (verification, reset, invitation) can be followed from the terminal.
 */
export async function sendMail(message: MailMessage): Promise<void> {
  const smtp = transport();
  if (!smtp) {
    console.log(`[mail] to ${message.to}: ${message.subject}\n${message.text}`);
    return;
  }
  await smtp.sendMail({ from: mailFrom(), to: message.to, subject: message.subject, text: message.text });
}
