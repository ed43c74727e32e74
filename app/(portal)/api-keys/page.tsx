import type { Metadata } from "next";
import { ApiKeysManager } from "@/components/keys/api-keys-manager";
import { requirePortalPage, type PageSearchParams } from "@/lib/portal/page-guard";
import { PORTAL_PAGES } from "@/lib/portal/pages";

export const metadata: Metadata = { title: "API keys" };

/** The account's API keys (GET/POST/DELETE /v1/api-keys from the browser): sessions with `keys:read` only. */
export default async function ApiKeysPage({ searchParams }: { searchParams: Promise<PageSearchParams> }) {
  const { session } = await requirePortalPage(PORTAL_PAGES.apiKeys, searchParams);
  return (
    <div className="flex flex-col gap-4">
      <div>
        <h1 className="text-2xl font-semibold tracking-tight">API keys</h1>
        <p className="text-sm text-slate-600">
          Keys for your programs and switches: each with the scopes it needs, no more than yours. A key&apos;s secret is
          shown once, when it is created.
        </p>
      </div>
      <ApiKeysManager scopes={session.scopes} canWrite={session.scopes.includes("keys:write")} />
    </div>
  );
}
