"use client";

import { useCallback, useMemo, useSyncExternalStore } from "react";
import { chosenCallColumns, type CallColumnId } from "@/lib/portal/call-columns";

const CHANGE_EVENT = "callbook:columns";

function subscribe(onChange: () => void): () => void {
  window.addEventListener("storage", onChange); // other tabs
  window.addEventListener(CHANGE_EVENT, onChange); // this tab
  return () => {
    window.removeEventListener("storage", onChange);
    window.removeEventListener(CHANGE_EVENT, onChange);
  };
}

function read(key: string): string | null {
  try {
    return window.localStorage.getItem(key);
  } catch {
    return null; // storage blocked: the default
  }
}

/**
 * The call log columns this person shows, kept in this browser per signed-in key (`owner`): a choice made with
 * one key does not leak into another's view. The server render shows the default set.
 */
export function useColumnChoice(available: CallColumnId[], owner: string) {
  const key = `callbook.callColumns.${owner}`;
  const stored = useSyncExternalStore(
    subscribe,
    () => read(key),
    () => null,
  );
  const shown = useMemo(() => chosenCallColumns(available, stored), [available, stored]);
  const choose = useCallback(
    (columns: CallColumnId[] | null) => {
      try {
        if (columns === null) window.localStorage.removeItem(key);
        else window.localStorage.setItem(key, JSON.stringify(columns));
      } catch {
        // storage blocked: nothing to keep
      }
      window.dispatchEvent(new Event(CHANGE_EVENT));
    },
    [key],
  );
  return { shown, choose };
}
