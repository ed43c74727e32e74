"use client";

import { useSyncExternalStore } from "react";

/** Below Tailwind's `sm`: cards instead of tables. */
const PHONE_QUERY = "(max-width: 639px)";

/** Whether the screen is phone-sized; false on the server (the table renders, then a phone switches to cards). */
export function usePhoneLayout(): boolean {
  return useSyncExternalStore(
    (onChange) => {
      const mq = window.matchMedia(PHONE_QUERY);
      mq.addEventListener("change", onChange);
      return () => mq.removeEventListener("change", onChange);
    },
    () => window.matchMedia(PHONE_QUERY).matches,
    () => false,
  );
}
