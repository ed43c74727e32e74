"use client";

import { useSyncExternalStore } from "react";

const subscribe = () => () => undefined;

/** false during the server render and hydration, true after: for values that depend on the browser (time zone, clock). */
export function useIsClient(): boolean {
  return useSyncExternalStore(
    subscribe,
    () => true,
    () => false,
  );
}
