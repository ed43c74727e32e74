// Wall-clock days and times of an IANA zone as instants, and back: Intl only (no database, no node built-ins), so the
// browser and the server read a zone's days the same way (CDR import, the portal's periods in an account's zone).

const offsetFormatters = new Map<string, Intl.DateTimeFormat>();

/** Offset of `timeZone` from UTC at the instant `utcMs`, in milliseconds. */
function zoneOffsetMs(timeZone: string, utcMs: number): number {
  let fmt = offsetFormatters.get(timeZone);
  if (!fmt) {
    fmt = new Intl.DateTimeFormat("en-US", {
      timeZone,
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
    });
    offsetFormatters.set(timeZone, fmt);
  }
  const parts: Record<string, number> = {};
  for (const p of fmt.formatToParts(new Date(utcMs))) if (p.type !== "literal") parts[p.type] = Number(p.value);
  const asUtc = Date.UTC(parts.year, parts.month - 1, parts.day, parts.hour, parts.minute, parts.second);
  return asUtc - Math.floor(utcMs / 1000) * 1000;
}

/**
 * The instants a local "YYYY-MM-DD HH:MM:SS" wall-clock time can denote in `timeZone`, in order of preference:
 * one normally; two in the hour a DST change repeats (first pass, then second pass) and in the hour it skips
 * (read with the offset before the change, i.e. moved forward by the gap, then with the offset after it). The
 * first is what a lone time means (RFC 5545 and Temporal's "compatible"); resolveCallTimes uses the others.
 */
export function localTimeReadings(text: string, timeZone: string, field: string): number[] {
  const m = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})$/.exec(text.trim());
  if (!m) throw new Error(`${field} must look like YYYY-MM-DD HH:MM:SS, got "${text}"`);
  const [y, mo, d, h, mi, s] = m.slice(1).map(Number);
  const wall = Date.UTC(y, mo - 1, d, h, mi, s);
  const check = new Date(wall);
  if (check.getUTCMonth() !== mo - 1 || check.getUTCDate() !== d || h > 23 || mi > 59 || s > 59) {
    throw new Error(`${field} is not a valid date: "${text}"`);
  }
  if (timeZone === "UTC") return [wall];
  // The zone's offsets a few hours either side of the wall time: the same offset in a normal hour; in the
  // hour DST repeats both readings are valid, in the hour it skips neither is (both are still offered).
  const before = wall - zoneOffsetMs(timeZone, wall - 6 * 3_600_000);
  const after = wall - zoneOffsetMs(timeZone, wall + 6 * 3_600_000);
  if (before === after) return [before];
  const valid = [before, after].filter((t) => t + zoneOffsetMs(timeZone, t) === wall);
  return valid.length === 1 ? valid : [before, after];
}

/** The preferred instant of a local wall-clock time (see localTimeReadings), as ISO. */
export function localTimeToIso(text: string, timeZone: string, field: string): string {
  return new Date(localTimeReadings(text, timeZone, field)[0]).toISOString();
}

/** The yyyy-mm-dd day `instant` falls on in `timeZone`. */
export function dayInZone(instant: Date, timeZone: string): string {
  const local = instant.getTime() + zoneOffsetMs(timeZone, instant.getTime());
  return new Date(local).toISOString().slice(0, 10);
}

/** The yyyy-mm-dd day `n` days after `day` (calendar days, no zone). */
export function addDays(day: string, n: number): string {
  const [y, m, d] = day.split("-").map(Number);
  return new Date(Date.UTC(y, m - 1, d + n)).toISOString().slice(0, 10);
}

/** The first instant of a yyyy-mm-dd day in `timeZone` (a midnight that DST skips: the day's first hour). */
export function zonedDayStart(day: string, timeZone: string): Date {
  return new Date(localTimeReadings(`${day} 00:00:00`, timeZone, "day")[0]);
}

/** Whole days [from, until] (inclusive, yyyy-mm-dd) of `timeZone` as instants: the first and the last millisecond. */
export function zonedDays(from: string, until: string, timeZone: string): { gte: Date; lte: Date } {
  return {
    gte: zonedDayStart(from, timeZone),
    lte: new Date(zonedDayStart(addDays(until, 1), timeZone).getTime() - 1),
  };
}
