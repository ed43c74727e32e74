import type { Metadata } from "next";
import Link from "next/link";
import { QualityCharts } from "@/components/quality/quality-charts";
import { isPlatform, reachOf } from "@/lib/auth/reach";
import { getDb } from "@/lib/db/client";
import { accountNames } from "@/lib/portal/account-names";
import { requirePortalPage, type PageSearchParams } from "@/lib/portal/page-guard";
import { PORTAL_PAGES } from "@/lib/portal/pages";
import { readQualityWindows } from "@/lib/quality/read-windows";

export const metadata: Metadata = { title: "Quality" };

const WINDOWS = { "15m": "15 minutes", "1h": "hour", "24h": "24 hours" } as const;
type WindowKey = keyof typeof WINDOWS;

/** ASR, ACD and PDD per destination prefix over a sliding window (GET /v1/quality): the account's people. */
export default async function QualityPage({ searchParams }: { searchParams: Promise<PageSearchParams> }) {
  const { principal, params } = await requirePortalPage(PORTAL_PAGES.quality, searchParams);
  const window: WindowKey =
    typeof params.window === "string" && params.window in WINDOWS ? (params.window as WindowKey) : "1h";
  const platform = isPlatform(reachOf(principal));
  // A platform session shows the account chosen in the switcher (the URL's `account`), else every account.
  const account = platform && typeof params.account === "string" && params.account ? params.account : undefined;
  const db = await getDb();
  const report = await readQualityWindows(db, principal, { window, groupBy: "prefix", account });
  const names = platform ? await accountNames(db, principal) : undefined;
  return (
    <div className="flex flex-col gap-4">
      <div>
        <h1 className="text-2xl font-semibold tracking-tight">Quality</h1>
        <p className="text-sm text-slate-600">
          Answer-seizure ratio (ASR), average call duration (ACD) and post-dial delay (PDD) of{" "}
          {platform ? "every account's" : "your"} outbound calls per destination prefix, over a sliding window.
        </p>
      </div>
      <nav aria-label="Window" className="flex gap-2 text-sm">
        {(Object.keys(WINDOWS) as WindowKey[]).map((key) => (
          <Link
            key={key}
            href={`${PORTAL_PAGES.quality.path}?${new URLSearchParams({ window: key, ...(account ? { account } : {}) })}`}
            aria-current={key === window ? "page" : undefined}
            className={`rounded-md px-3 py-1.5 ${key === window ? "bg-brand-700 text-white" : "bg-white text-slate-700 ring-1 ring-slate-200 hover:bg-slate-50"}`}
          >
            Last {WINDOWS[key]}
          </Link>
        ))}
      </nav>
      <QualityCharts windows={report.windows} windowLabel={WINDOWS[window]} names={names} />
    </div>
  );
}
