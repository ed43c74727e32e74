"use client";

import { useSyncExternalStore } from "react";
import { formatDateTime, shortTimeZoneName, timeZoneName } from "@/lib/portal/format";
import { useIsClient } from "../use-is-client";

/** Which clock the portal shows: the viewer's own zone, or UTC. Kept in localStorage, per browser. */
export type ZoneMode = "local" | "utc";

const STORAGE_KEY = "callbook.timeZone";
const CHANGE_EVENT = "callbook:timezone";

function subscribe(onChange: () => void): () => void {
  window.addEventListener("storage", onChange); // other tabs
  window.addEventListener(CHANGE_EVENT, onChange); // this tab
  return () => {
    window.removeEventListener("storage", onChange);
    window.removeEventListener(CHANGE_EVENT, onChange);
  };
}

function readMode(): ZoneMode {
  try {
    return window.localStorage.getItem(STORAGE_KEY) === "utc" ? "utc" : "local";
  } catch {
    return "local"; // storage blocked
  }
}

export function setZoneMode(mode: ZoneMode): void {
  try {
    window.localStorage.setItem(STORAGE_KEY, mode);
  } catch {
    // storage blocked: the switch still applies to this page
  }
  window.dispatchEvent(new Event(CHANGE_EVENT));
}

export interface ZoneInfo {
  mode: ZoneMode;
  /** IANA zone for Intl: undefined means the viewer's own. */
  timeZone: string | undefined;
  /** "America/New_York" or "UTC" */
  name: string;
  /** "EST" or "UTC" */
  short: string;
}

/**
 * The zone to show times in. The server render cannot know the viewer's zone, so it renders UTC
 * (named as such) and the browser switches to the stored choice right after hydration.
 */
export function useTimeZone(): ZoneInfo {
  const mode = useSyncExternalStore<ZoneMode | "server">(subscribe, readMode, () => "server");
  if (mode === "server" || mode === "utc") return { mode: "utc", timeZone: "UTC", name: "UTC", short: "UTC" };
  return { mode: "local", timeZone: undefined, name: timeZoneName(), short: shortTimeZoneName() };
}

/**
 * An instant in the portal's one format, in the chosen zone, or in `timeZone` when the screen has one zone of its own
 * (the dashboard: the account's); the machine-readable value stays UTC.
 */
export function Time({ iso, timeZone }: { iso: string; timeZone?: string }) {
  const chosen = useTimeZone();
  const zone = timeZone ?? chosen.timeZone;
  const text = formatDateTime(iso, { timeZone: zone });
  return (
    <time dateTime={iso} title={`${text} ${timeZone ?? chosen.name}`}>
      {text}
    </time>
  );
}

/** The header switch between the viewer's zone and UTC. */
export function TimeZoneSwitch() {
  const zone = useTimeZone();
  const local = useIsClient() ? timeZoneName() : null;
  return (
    <div
      role="group"
      aria-label="Time zone"
      className="inline-flex rounded-lg border border-slate-300 bg-white p-0.5 text-xs"
      data-testid="tz-switch"
    >
      <button
        type="button"
        aria-pressed={zone.mode === "local"}
        onClick={() => setZoneMode("local")}
        title={local ? `Your time zone (${local})` : "Your time zone"}
        className={`rounded-md px-2 py-1 font-medium ${zone.mode === "local" ? "bg-slate-900 text-white" : "text-slate-700 hover:bg-slate-100"}`}
      >
        Local
      </button>
      <button
        type="button"
        aria-pressed={zone.mode === "utc"}
        onClick={() => setZoneMode("utc")}
        title="Coordinated Universal Time"
        className={`rounded-md px-2 py-1 font-medium ${zone.mode === "utc" ? "bg-slate-900 text-white" : "text-slate-700 hover:bg-slate-100"}`}
      >
        UTC
      </button>
    </div>
  );
}
