import type { AddressInfo } from "node:net";
import { SMTPServer } from "smtp-server";

/**
 * A local SMTP server (the npm `smtp-server` package) on a free 127.0.0.1 port that hands every message it receives,
 * raw, to `onMessage`: where the product's real mail path (nodemailer over SMTP_URL) ends in the tests.
 */
export async function startSmtpSink(
  onMessage: (raw: Buffer) => void,
): Promise<{ url: string; close: () => Promise<void> }> {
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS", "AUTH"],
    logger: false,
    onData(stream, _session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (c: Buffer) => chunks.push(c));
      stream.on("end", () => {
        onMessage(Buffer.concat(chunks));
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.server.address() as AddressInfo;
  return { url: `smtp://127.0.0.1:${port}`, close: () => new Promise<void>((r) => server.close(() => r())) };
}
