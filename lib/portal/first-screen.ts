import "server-only";
import { headers } from "next/headers";
import type { Principal } from "@/lib/auth/principal";
import { getAccount, getBalance } from "@/lib/billing/accounts";
import { getAccountOperation, getBalanceOperation } from "@/lib/billing/operations";
import type { Account, Balance } from "@/lib/billing/schemas";
import { listCallsOperation } from "@/lib/calls/operations";
import { listCallsQuerySchema, type CallPage } from "@/lib/calls/schemas";
import { publicBaseUrl } from "@/lib/config/env";
import { getDb } from "@/lib/db/client";
import { readDbFor } from "@/lib/db/read-replica";
import { ApiError } from "@/lib/errors/api-error";
import { pageOrigin } from "@/lib/http/next-page-link";
import { queryObject } from "@/lib/http/query-params";
import { assertOperationAllowed } from "@/lib/openapi/operation-allowed";
import { parseCallFilters } from "./call-filters";
import { portalCallPage } from "./portal-call-reads";
import type { PageSearchParams } from "./page-guard";
import {
  accountKey,
  balanceKey,
  callPagesKey,
  firstCallPagePath,
  latestCallsKey,
  latestCallsPath,
  serverCallLogQuery,
  type QueryAnswers,
} from "./query-keys";
import { searchParamsOf } from "./sign-in";

// A page's first screen, read on the server: what the browser would have fetched from /v1 right after hydration
// (issue 30 item 11: the call log showed its first rows after 7 s under load). Each read is the API's own: its
// operation's refusals, its query schema and its domain function, so the answer is the one the route gives this
// session (cost fields only with calls:read_cost). Where the API would refuse, the answer is null and the browser asks,
// and shows what the API says.

async function asTheApiAnswers<T>(
  operation: Parameters<typeof assertOperationAllowed>[0],
  principal: Principal,
  read: () => Promise<T>,
): Promise<T | null> {
  try {
    assertOperationAllowed(operation, principal);
    // As JSON travels: what the browser's fetch would have parsed.
    return JSON.parse(JSON.stringify(await read())) as T;
  } catch (error) {
    if (error instanceof ApiError) return null;
    throw error;
  }
}

/** The origin of nextPageUrl, by the routes' rule (the browser follows only its path: apiGet). */
async function requestOrigin(): Promise<string> {
  const h = await headers();
  const forwarded = h.get("x-forwarded-proto");
  const request = new Request("http://127.0.0.1/", {
    headers: { host: h.get("host") ?? "", ...(forwarded ? { "x-forwarded-proto": forwarded } : {}) },
  });
  return pageOrigin(request, publicBaseUrl());
}

/** GET /v1/calls at `path` (firstCallPagePath, latestCallsPath) for this session. */
export function callPageAt(principal: Principal, path: string): Promise<CallPage | null> {
  return asTheApiAnswers(listCallsOperation, principal, async () => {
    const query = listCallsQuerySchema.safeParse(queryObject(new URL(path, "http://portal.invalid").searchParams));
    if (!query.success) throw new ApiError("invalid_parameter", "One or more query parameters are invalid.");
    const db = await readDbFor(await getDb(), principal.billingGroupId);
    return portalCallPage(db, principal, query.data, await requestOrigin());
  });
}

/** GET /v1/balances for this session. */
export async function balanceOf(principal: Principal): Promise<Balance | null> {
  return asTheApiAnswers(getBalanceOperation, principal, async () => getBalance(await getDb(), principal));
}

/** GET /v1/accounts/{id} for this session. */
export async function accountOf(principal: Principal, id: string): Promise<Account | null> {
  return asTheApiAnswers(getAccountOperation, principal, async () => getAccount(await getDb(), principal, id));
}

/**
 * The call log's first page for the URL's filters (parsed as the browser parses them), as its infinite query holds it:
 * scrolling goes on from the page's nextPageUrl. None when the filters name days (the viewer's zone decides them).
 */
export async function callLogFirstScreen(principal: Principal, params: PageSearchParams): Promise<QueryAnswers> {
  const apiQuery = serverCallLogQuery(parseCallFilters(searchParamsOf(params)));
  if (apiQuery === null) return [];
  const path = firstCallPagePath(apiQuery);
  const page = await callPageAt(principal, path);
  return [[callPagesKey(apiQuery), page && { pages: [page], pageParams: [path] }]];
}

/**
 * The dashboard's balance (a platform session's: the chosen account's, `platformAccount`) and its latest calls.
 * `platformAccount` undefined: the session's own group.
 */
export async function dashboardFirstScreen(
  principal: Principal,
  platformAccount: string | null | undefined,
): Promise<QueryAnswers> {
  const account = platformAccount ?? undefined;
  const [balance, latest] = await Promise.all([
    platformAccount === undefined
      ? balanceOf(principal)
      : platformAccount === null
        ? null
        : accountOf(principal, platformAccount),
    callPageAt(principal, latestCallsPath(account)),
  ]);
  return [
    [platformAccount === undefined ? balanceKey : accountKey(platformAccount), balance],
    [latestCallsKey(account), latest],
  ];
}
