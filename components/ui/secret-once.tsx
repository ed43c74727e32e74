"use client";

import { useId, useState, type ReactNode } from "react";
import { Button } from "./button";
import { Card } from "./card";

/** A secret the server shows this once (a new API key, a webhook signing secret): the value, Copy, and Done. */
export function SecretOnce({
  title,
  note,
  secret,
  testId,
  onDone,
}: {
  title: ReactNode;
  note: ReactNode;
  secret: string;
  testId: string;
  onDone: () => void;
}) {
  const [copied, setCopied] = useState(false);
  const titleId = useId();
  return (
    <Card role="status" aria-labelledby={titleId} className="flex flex-col gap-3 border-amber-300 bg-amber-50">
      <h2 id={titleId} className="text-sm font-semibold text-slate-900">
        {title}
      </h2>
      <p className="text-sm text-slate-700">{note}</p>
      <div className="flex flex-wrap items-center gap-2">
        <code
          data-testid={testId}
          className="rounded-md border border-slate-300 bg-white px-2 py-1 font-mono text-sm break-all"
        >
          {secret}
        </code>
        <Button
          onClick={() =>
            void navigator.clipboard.writeText(secret).then(
              () => setCopied(true),
              () => setCopied(false),
            )
          }
        >
          {copied ? "Copied" : "Copy"}
        </Button>
      </div>
      <div>
        <Button variant="primary" onClick={onDone}>
          Done
        </Button>
      </div>
    </Card>
  );
}
