import type { AddressInfo } from "node:net";
import { SMTPServer } from "smtp-server";
import { afterAll, beforeAll, expect, it } from "vitest";

// Over SMTP_URL the message reaches an SMTP server (here the npm `smtp-server` package on a free loopback port).
const received: string[] = [];
const server = new SMTPServer({
  authOptional: true,
  disabledCommands: ["STARTTLS", "AUTH"],
  logger: false,
  onData(stream, _session, callback) {
    const chunks: Buffer[] = [];
    stream.on("data", (c: Buffer) => chunks.push(c));
    stream.on("end", () => {
      received.push(Buffer.concat(chunks).toString("utf8"));
      callback();
    });
  },
});

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  process.env.SMTP_URL = `smtp://127.0.0.1:${(server.server.address() as AddressInfo).port}`;
  process.env.MAIL_FROM = "Callbook Test <portal@callbook.test>";
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

it("sends a plain-text message over SMTP_URL from MAIL_FROM", async () => {
  const { sendMail } = await import("./send-mail");
  await sendMail({ to: "someone@example.test", subject: "Hello", text: "A link: https://portal.test/x?id=1" });
  expect(received).toHaveLength(1);
  expect(received[0]).toMatch(/^From: Callbook Test <portal@callbook\.test>/m);
  expect(received[0]).toMatch(/^To: someone@example\.test/m);
  expect(received[0]).toMatch(/^Subject: Hello/m);
  expect(received[0]).toContain("https://portal.test/x?id=1");
});
