"use client";

import { useInfiniteQuery, useMutation, useQueryClient } from "@tanstack/react-query";
import { apiGet, apiSend } from "@/components/api/api-client";
import { Time } from "@/components/portal/time-zone";
import { Button } from "@/components/ui/button";
import { LoadError } from "@/components/ui/load-error";
import { problemText, type Delivery, type DeliveryPage } from "./api";

const STATE_CLASS: Record<Delivery["status"], string> = {
  delivered: "bg-emerald-100 text-emerald-900",
  pending: "bg-slate-100 text-slate-800",
  failed: "bg-red-100 text-red-900",
};

/**
 * An endpoint's deliveries, newest first, each with every attempt (time, status, duration, the start of the answer or
 * the error) and a Resend button. Refreshed every 2 s while a delivery is pending.
 */
export function DeliveryLog({ endpointId }: { endpointId: string }) {
  const key = ["webhook-deliveries", endpointId];
  const queryClient = useQueryClient();
  const pages = useInfiniteQuery({
    queryKey: key,
    initialPageParam: `/v1/webhook-endpoints/${encodeURIComponent(endpointId)}/deliveries?pageSize=20`,
    queryFn: ({ pageParam, signal }) => apiGet<DeliveryPage>(pageParam, signal),
    getNextPageParam: (last) => last.nextPageUrl ?? undefined,
    refetchInterval: (query) =>
      query.state.data?.pages.some((p) => p.deliveries.some((d) => d.status === "pending")) ? 2000 : false,
  });
  const resend = useMutation({
    mutationFn: (eventId: string) =>
      apiSend<Delivery>(
        "POST",
        `/v1/webhook-endpoints/${encodeURIComponent(endpointId)}/deliveries/${encodeURIComponent(eventId)}/resend`,
      ),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: key }),
  });
  if (pages.isError)
    return <LoadError title="The delivery log could not be loaded." detail={problemText(pages.error)} />;
  if (pages.isPending) return <p className="text-sm text-slate-500">Loading deliveries…</p>;
  const deliveries = pages.data.pages.flatMap((p) => p.deliveries);
  return (
    <section aria-label="Delivery log" className="flex flex-col gap-2" data-testid="delivery-log">
      {deliveries.length === 0 ? (
        <p className="text-sm text-slate-500">Nothing sent yet. Send a test event to try the endpoint.</p>
      ) : (
        <ul className="flex flex-col gap-2">
          {deliveries.map((d) => (
            <li key={d.eventId} className="rounded-md border border-slate-200" data-event-id={d.eventId}>
              <div className="flex flex-wrap items-center justify-between gap-2 bg-slate-50 px-3 py-2 text-sm">
                <span className="flex flex-wrap items-center gap-2">
                  <span className="font-mono text-xs font-medium">{d.type}</span>
                  <span
                    className={`rounded-full px-2 py-0.5 text-xs ${STATE_CLASS[d.status]}`}
                    data-testid="delivery-status"
                  >
                    {d.status === "delivered" ? "Delivered" : d.status === "failed" ? "Failed" : "Pending"}
                  </span>
                  <span className="text-xs text-slate-600">
                    <Time iso={d.createdAt} />
                  </span>
                  <span className="font-mono text-xs text-slate-500">{d.eventId}</span>
                </span>
                <Button
                  onClick={() => resend.mutate(d.eventId)}
                  disabled={resend.isPending}
                  aria-label={`Resend ${d.eventId}`}
                >
                  Resend
                </Button>
              </div>
              {d.attempts.length === 0 ? (
                <p className="px-3 py-2 text-xs text-slate-600">
                  No attempt yet{d.nextAttemptAt ? "; due now or soon" : ""}.
                </p>
              ) : (
                <table className="w-full text-left text-xs">
                  <thead className="text-slate-600">
                    <tr>
                      <th className="px-3 py-1 font-medium">Attempted</th>
                      <th className="px-3 py-1 font-medium">Status</th>
                      <th className="px-3 py-1 font-medium">Duration</th>
                      <th className="px-3 py-1 font-medium">Response</th>
                    </tr>
                  </thead>
                  <tbody>
                    {d.attempts.map((a, i) => (
                      <tr key={i} className="border-t border-slate-100 align-top" data-testid="delivery-attempt">
                        <td className="px-3 py-1 whitespace-nowrap">
                          <Time iso={a.attemptedAt} />
                        </td>
                        <td className="px-3 py-1 font-mono" data-testid="attempt-status">
                          {a.status ?? "—"}
                        </td>
                        <td className="px-3 py-1 whitespace-nowrap">{a.durationMs} ms</td>
                        <td className="max-w-md px-3 py-1 font-mono break-all">
                          {a.error ? <span className="text-red-700">{a.error} </span> : null}
                          {a.responseExcerpt ? a.responseExcerpt.slice(0, 300) : a.error ? "" : "(empty)"}
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              )}
            </li>
          ))}
        </ul>
      )}
      {pages.hasNextPage ? (
        <div>
          <Button onClick={() => void pages.fetchNextPage()} disabled={pages.isFetchingNextPage}>
            Older deliveries
          </Button>
        </div>
      ) : null}
      {resend.isError ? (
        <p role="alert" className="text-sm text-red-700">
          {problemText(resend.error)}
        </p>
      ) : null}
    </section>
  );
}
