"use client";

import { useRouter } from "next/navigation";
import type { ReactNode } from "react";

/**
 * A table row that opens `href` when clicked anywhere but on its own links (the downloads). The row's first cell
 * holds a real link to the same place, which is what keyboards and screen readers use.
 */
export function LinkedRow({ href, className, children }: { href: string; className?: string; children: ReactNode }) {
  const router = useRouter();
  return (
    <tr
      className={`cursor-pointer hover:bg-brand-50/60 ${className ?? ""}`.trim()}
      onClick={(event) => {
        if ((event.target as HTMLElement).closest("a, button")) return;
        // Selecting a row's text to copy it is not a click on the row.
        if (window.getSelection()?.toString()) return;
        router.push(href);
      }}
    >
      {children}
    </tr>
  );
}
