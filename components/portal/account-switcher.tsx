"use client";

import { usePathname, useRouter } from "next/navigation";
import { useId, useTransition } from "react";

export interface AccountChoice {
  id: string;
  name: string;
  currency: string;
}

/**
 * A platform session's account switcher, by name: the choice lives in the URL (`?account=`), so the server renders
 * the page for the same account and the other pages follow it. `none`: a choice of no account (e.g. platform-wide).
 */
export function AccountSwitcher({
  accounts,
  selected,
  none,
  showLabel = false,
}: {
  accounts: AccountChoice[];
  selected: string | null;
  none?: string;
  showLabel?: boolean;
}) {
  const id = useId();
  const router = useRouter();
  const pathname = usePathname();
  const [switching, startSwitch] = useTransition();
  return (
    <div className="w-full">
      <label
        htmlFor={`${id}-account`}
        className={showLabel ? "mb-1 block text-sm font-medium text-slate-700" : "sr-only"}
      >
        Account
      </label>
      <select
        id={`${id}-account`}
        value={selected ?? ""}
        aria-busy={switching}
        onChange={(e) => {
          const next = e.target.value;
          const href = next ? `${pathname}?account=${encodeURIComponent(next)}` : pathname;
          startSwitch(() => router.push(href, { scroll: false }));
        }}
        className="w-full rounded-lg border border-slate-300 bg-white px-2 py-1 text-sm focus:border-brand-500 focus:outline-none focus:ring-2 focus:ring-brand-100"
      >
        {none !== undefined ? <option value="">{none}</option> : null}
        {accounts.map((a) => (
          <option key={a.id} value={a.id}>
            {a.name} ({a.currency})
          </option>
        ))}
      </select>
    </div>
  );
}
