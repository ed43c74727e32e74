import { afterAll, beforeAll, expect, it } from "vitest";
import { startSmtpSink } from "@/lib/testing/smtp-sink";

// Over SMTP_URL the message reaches an SMTP server (here the npm `smtp-server` package on a free loopback port).
const received: string[] = [];
let sink: Awaited<ReturnType<typeof startSmtpSink>>;

beforeAll(async () => {
  sink = await startSmtpSink((raw) => received.push(raw.toString("utf8")));
  process.env.SMTP_URL = sink.url;
  process.env.MAIL_FROM = "Callbook Test <portal@callbook.test>";
});
afterAll(() => sink.close());

it("sends a plain-text message over SMTP_URL from MAIL_FROM", async () => {
  const { sendMail } = await import("./send-mail");
  await sendMail({ to: "someone@example.test", subject: "Hello", text: "A link: https://portal.test/x?id=1" });
  expect(received).toHaveLength(1);
  expect(received[0]).toMatch(/^From: Callbook Test <portal@callbook\.test>/m);
  expect(received[0]).toMatch(/^To: someone@example\.test/m);
  expect(received[0]).toMatch(/^Subject: Hello/m);
  expect(received[0]).toContain("https://portal.test/x?id=1");
});
