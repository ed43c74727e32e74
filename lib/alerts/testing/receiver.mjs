// A webhook receiver for the delivery tests, run as its own process so a test can kill -9 it mid-delivery.
// It verifies Standard Webhooks signatures with its own HMAC code (independent of lib/alerts/signing.ts) and
// processes each webhook-id once: processed ids are appended (fsync) to `<state>/processed`; a redelivered id is
// acknowledged without processing and noted in `<state>/redelivered`. With HANG_AT=n it records the n-th new
// message as processed, writes `<state>/hanging`, and never answers (the test kills it there).
// usage: node receiver.mjs <port> <state dir> <secret>
import { createHmac, timingSafeEqual } from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import path from "node:path";

const [port, stateDir, secret] = process.argv.slice(2);
const hangAt = Number(process.env.HANG_AT || 0);
const file = (name) => path.join(stateDir, name);
const processed = new Set(
  fs.existsSync(file("processed")) ? fs.readFileSync(file("processed"), "utf8").split("\n").filter(Boolean) : [],
);
let fresh = 0;

function append(name, line) {
  const fd = fs.openSync(file(name), "a");
  fs.writeSync(fd, `${line}\n`);
  fs.fsyncSync(fd);
  fs.closeSync(fd);
}

function verified(headers, body) {
  const id = headers["webhook-id"];
  const ts = headers["webhook-timestamp"];
  const sigs = headers["webhook-signature"];
  if (!id || !ts || !sigs) return false;
  if (Math.abs(Date.now() / 1000 - Number(ts)) > 300) return false;
  const key = Buffer.from(secret.replace(/^whsec_/, ""), "base64");
  const expected = Buffer.from(`v1,${createHmac("sha256", key).update(`${id}.${ts}.${body}`).digest("base64")}`);
  return sigs
    .split(" ")
    .some((s) => Buffer.byteLength(s) === expected.length && timingSafeEqual(Buffer.from(s), expected));
}

http
  .createServer((req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      if (!verified(req.headers, body)) {
        append("rejected", req.headers["webhook-id"] ?? "?");
        res.writeHead(400).end("bad signature");
        return;
      }
      const id = req.headers["webhook-id"];
      if (processed.has(id)) {
        append("redelivered", id);
        res.writeHead(200).end("already processed");
        return;
      }
      processed.add(id);
      append("processed", id);
      fresh += 1;
      if (fresh === hangAt) {
        append("hanging", id);
        return; // no answer: the sender waits until the test kills this process
      }
      res.writeHead(204).end();
    });
  })
  .listen(Number(port), "127.0.0.1", () => append("listening", String(process.pid)));
