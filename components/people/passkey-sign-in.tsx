"use client";

import { startAuthentication, WebAuthnAbortService } from "@simplewebauthn/browser";
import { useState } from "react";
import { secondaryButtonClass } from "@/components/ui/button";

/**
 * "Sign in with a passkey" on the sign-in page: asks the server for a challenge, lets the browser find a passkey of
 * this site, and sends its answer back (lib/portal/passkey-post.ts).
 */
export function PasskeySignIn({ next }: { next: string }) {
  const [state, setState] = useState<"idle" | "busy" | "failed">("idle");

  async function signIn() {
    setState("busy");
    try {
      const optionsAnswer = await fetch("/session/passkey/options", { method: "POST" });
      if (!optionsAnswer.ok) throw new Error("no options");
      const response = await startAuthentication({ optionsJSON: await optionsAnswer.json() });
      const answer = await fetch("/session/passkey", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ response, next }),
      });
      const body = (await answer.json().catch(() => ({}))) as { location?: string };
      if (!answer.ok || !body.location) throw new Error("refused");
      window.location.assign(body.location);
    } catch {
      WebAuthnAbortService.cancelCeremony();
      setState("failed");
    }
  }

  return (
    <div className="mt-6 border-t border-slate-200 pt-6">
      <button
        type="button"
        onClick={signIn}
        disabled={state === "busy"}
        className={`${secondaryButtonClass} w-full py-2`}
      >
        {state === "busy" ? "Waiting for your passkey…" : "Sign in with a passkey"}
      </button>
      {state === "failed" ? (
        <p role="alert" className="mt-2 text-sm text-red-700">
          That passkey could not sign you in. Try again, or use your email and password.
        </p>
      ) : null}
    </div>
  );
}
