"use client";

import { startRegistration } from "@simplewebauthn/browser";
import { useRouter } from "next/navigation";
import { useActionState, useState } from "react";
import { Button, primaryButtonClass, secondaryButtonClass } from "@/components/ui/button";
import { Card, CardTitle } from "@/components/ui/card";
import { ErrorState } from "@/components/ui/error-state";
import { fieldLabelClass, inputClass } from "@/components/ui/field";
import type { PasskeySummary } from "@/lib/people/passkeys";
import type { SecondFactorStatus } from "@/lib/people/two-factor";
import {
  confirmTotpAction,
  disableTotpAction,
  passkeyOptionsAction,
  regenerateCodesAction,
  registerPasskeyAction,
  removePasskeyAction,
  requireTwoFactorAction,
  startTotpAction,
  type SecurityState,
} from "@/lib/portal/security-actions";

const DONE: Record<string, string> = {
  enabled: "Two-factor sign-in is on. Your other sessions have been signed out.",
  disabled: "Two-factor sign-in is off. Your other sessions have been signed out.",
  required: "Members of your organization now need a second factor.",
  not_required: "A second factor is no longer required in your organization.",
  passkey_removed: "Passkey removed.",
};

const ERRORS: Record<string, string> = {
  enroll_first: "Set up your own authenticator app first, then require it of everyone.",
  forbidden: "Only an owner or admin changes this setting.",
  not_found: "No such passkey.",
};

interface Person {
  email: string;
  status: SecondFactorStatus;
  passkeys: PasskeySummary[];
  organizationRequires: boolean;
  mustEnroll: boolean;
  managesOrganization: boolean;
}

const idle: SecurityState = { step: "idle" };

function PasswordField({ id, label = "Your password" }: { id: string; label?: string }) {
  return (
    <div className="w-full sm:w-72">
      <label htmlFor={id} className={fieldLabelClass}>
        {label}
      </label>
      <input
        id={id}
        name="password"
        type="password"
        required
        autoComplete="current-password"
        className={`${inputClass()} mt-1`}
      />
    </div>
  );
}

function RecoveryCodes({ codes, pending }: { codes: string[]; pending: boolean }) {
  return (
    <div role="status" className="mt-4 rounded-lg border border-amber-300 bg-amber-50 p-4">
      <p className="text-sm font-medium text-amber-900">
        Your recovery codes: save them somewhere safe now. They are shown only this once; each one signs you in once if
        you lose your authenticator app.{pending ? " They work once you turn the app on below." : null}
      </p>
      <ul
        aria-label="Recovery codes"
        className="mt-3 grid grid-cols-2 gap-x-6 gap-y-1 font-mono text-sm sm:grid-cols-5"
      >
        {codes.map((code) => (
          <li key={code}>{code}</li>
        ))}
      </ul>
    </div>
  );
}

function TotpSection({ person }: { person: Person }) {
  const [started, start, starting] = useActionState(startTotpAction, idle);
  const [confirmed, confirm, confirming] = useActionState(confirmTotpAction, idle);
  const [regenerated, regenerate, regenerating] = useActionState(regenerateCodesAction, idle);
  const [disabled, disable, disabling] = useActionState(disableTotpAction, idle);
  const enabled = person.status.totp;
  // Until TOTP is on: the secret, the codes, and the code that turns it on.
  const confirmStep = started.step === "confirm" && !enabled ? started : null;
  const codes = confirmStep
    ? confirmStep.recoveryCodes
    : regenerated.step === "codes"
      ? regenerated.recoveryCodes
      : null;

  return (
    <Card aria-labelledby="totp-title">
      <CardTitle id="totp-title">Authenticator app (TOTP)</CardTitle>
      <p className="mt-1 text-sm text-slate-700">
        {enabled ? (
          <>
            <strong className="font-semibold text-emerald-700">On.</strong> Signing in asks a code from your app after
            your password.
            {person.status.recoveryCodesLeft !== null
              ? ` ${person.status.recoveryCodesLeft} recovery codes left.`
              : null}
          </>
        ) : (
          <>
            <strong className="font-semibold text-slate-900">Off.</strong> Add an authenticator app (1Password, Google
            Authenticator, Authy…) so that a password alone does not sign you in.
          </>
        )}
      </p>
      {codes ? <RecoveryCodes codes={codes} pending={confirmStep !== null} /> : null}

      {!enabled && !confirmStep ? (
        <form action={start} className="mt-4 flex flex-wrap items-end gap-3">
          <PasswordField id="totp-password" />
          <button type="submit" className={primaryButtonClass({ compact: true })} disabled={starting}>
            Set up authenticator app
          </button>
          {started.step === "idle" && started.error ? (
            <ErrorState className="w-full">{started.error}</ErrorState>
          ) : null}
        </form>
      ) : null}

      {confirmStep ? (
        <div className="mt-4 flex flex-col gap-4 sm:flex-row">
          {/* eslint-disable-next-line @next/next/no-img-element -- a data: URL made on the server */}
          <img
            src={confirmStep.qrDataUrl}
            width={192}
            height={192}
            alt="QR code of your authenticator secret: scan it with your app"
            className="rounded-lg border border-slate-200"
          />
          <div className="flex min-w-0 flex-1 flex-col gap-3">
            <p className="text-sm text-slate-700">
              Scan the code with your authenticator app, or paste this address into it:
            </p>
            <code
              data-testid="totp-uri"
              className="block break-all rounded-md bg-slate-100 px-2 py-1 font-mono text-xs text-slate-800"
            >
              {confirmStep.totpURI}
            </code>
            <form action={confirm} className="flex flex-wrap items-end gap-3">
              <div className="w-40">
                <label htmlFor="totp-code" className={fieldLabelClass}>
                  Code from the app
                </label>
                <input
                  id="totp-code"
                  name="code"
                  required
                  inputMode="numeric"
                  autoComplete="one-time-code"
                  pattern="[0-9 ]{6,7}"
                  className={`${inputClass()} mt-1`}
                />
              </div>
              <button type="submit" className={primaryButtonClass({ compact: true })} disabled={confirming}>
                Turn on
              </button>
            </form>
            {confirmed.step === "idle" && confirmed.error ? <ErrorState>{confirmed.error}</ErrorState> : null}
          </div>
        </div>
      ) : null}

      {enabled ? (
        <div className="mt-4 flex flex-col gap-4 border-t border-slate-100 pt-4">
          <form action={regenerate} className="flex flex-wrap items-end gap-3">
            <PasswordField id="codes-password" />
            <button type="submit" className={secondaryButtonClass} disabled={regenerating}>
              New recovery codes
            </button>
            {regenerated.step === "idle" && regenerated.error ? (
              <ErrorState className="w-full">{regenerated.error}</ErrorState>
            ) : null}
          </form>
          {person.organizationRequires ? (
            <p className="text-sm text-slate-600">Your organization requires a second factor: it stays on.</p>
          ) : (
            <form action={disable} className="flex flex-wrap items-end gap-3">
              <PasswordField id="disable-password" />
              <button type="submit" className={secondaryButtonClass} disabled={disabling}>
                Turn off two-factor sign-in
              </button>
              {disabled.step === "idle" && disabled.error ? (
                <ErrorState className="w-full">{disabled.error}</ErrorState>
              ) : null}
            </form>
          )}
        </div>
      ) : null}
    </Card>
  );
}

function PasskeySection({ passkeys }: { passkeys: PasskeySummary[] }) {
  const router = useRouter();
  const [name, setName] = useState("");
  const [state, setState] = useState<{ busy: boolean; message?: string; added?: boolean }>({ busy: false });

  async function add() {
    setState({ busy: true });
    try {
      const options = await passkeyOptionsAction();
      if (!options) throw new Error("Your session has ended. Sign in again.");
      const response = await startRegistration({ optionsJSON: options as never });
      const result = await registerPasskeyAction(response as unknown as Record<string, unknown>, name);
      if (!result.ok) throw new Error(result.message ?? "The passkey was refused.");
      setName("");
      setState({ busy: false, added: true });
      router.refresh();
    } catch (error) {
      setState({ busy: false, message: error instanceof Error ? error.message : "The passkey was not added." });
    }
  }

  return (
    <Card aria-labelledby="passkeys-title">
      <CardTitle id="passkeys-title">Passkeys</CardTitle>
      <p className="mt-1 text-sm text-slate-700">
        Sign in with your device&apos;s fingerprint, face or PIN instead of a password. A passkey is a second factor in
        itself.
      </p>
      {passkeys.length > 0 ? (
        <ul aria-label="Your passkeys" className="mt-3 divide-y divide-slate-100 rounded-lg border border-slate-200">
          {passkeys.map((p) => (
            <li key={p.id} className="flex flex-wrap items-center justify-between gap-2 px-3 py-2 text-sm">
              <span>
                <span className="font-medium text-slate-900">{p.name ?? "Passkey"}</span>{" "}
                <span className="text-slate-500">
                  added {new Date(p.createdAt).toISOString().slice(0, 10)}
                  {p.backedUp ? " · synced" : ""}
                </span>
              </span>
              <form action={removePasskeyAction}>
                <input type="hidden" name="passkeyId" value={p.id} />
                <button type="submit" className={secondaryButtonClass} aria-label={`Remove passkey ${p.name ?? ""}`}>
                  Remove
                </button>
              </form>
            </li>
          ))}
        </ul>
      ) : (
        <p className="mt-3 text-sm text-slate-500">No passkeys yet.</p>
      )}
      <div className="mt-4 flex flex-wrap items-end gap-3">
        <div className="w-full sm:w-72">
          <label htmlFor="passkey-name" className={fieldLabelClass}>
            Name of the new passkey
          </label>
          <input
            id="passkey-name"
            value={name}
            onChange={(e) => setName(e.target.value)}
            maxLength={100}
            placeholder="Work laptop"
            className={`${inputClass()} mt-1`}
          />
        </div>
        <Button variant="primary" onClick={add} disabled={state.busy}>
          {state.busy ? "Waiting for your device…" : "Add a passkey"}
        </Button>
      </div>
      {state.added ? (
        <p role="status" className="mt-2 text-sm text-emerald-800">
          Passkey added.
        </p>
      ) : null}
      {state.message ? <ErrorState className="mt-2">{state.message}</ErrorState> : null}
    </Card>
  );
}

function OrganizationSection({ requires }: { requires: boolean }) {
  return (
    <Card aria-labelledby="org-2fa-title">
      <CardTitle id="org-2fa-title">Your organization</CardTitle>
      <p className="mt-1 text-sm text-slate-700">
        {requires
          ? "Every member needs an authenticator app: one without it can only open this page until they set it up."
          : "Members may sign in with a password alone."}
      </p>
      <form action={requireTwoFactorAction} className="mt-3">
        <input type="hidden" name="require" value={requires ? "off" : "on"} />
        <button type="submit" className={requires ? secondaryButtonClass : primaryButtonClass({ compact: true })}>
          {requires ? "Stop requiring two-factor" : "Require two-factor for all members"}
        </button>
      </form>
    </Card>
  );
}

/** The Security page: the person's authenticator app and recovery codes, passkeys, and (owner, admin) the rule. */
export function SecurityPanel({
  person,
  notice,
}: {
  /** null: a key's session (development sign-in), which has no second factor. */
  person: Person | null;
  notice: { done?: string; error?: string };
}) {
  return (
    <div className="flex max-w-3xl flex-col gap-4">
      <div>
        <h1 className="text-2xl font-semibold tracking-tight">Security</h1>
        <p className="text-sm text-slate-600">
          {person ? `How ${person.email} signs in.` : "A key's session has no second factor: sign in as a person."}
        </p>
      </div>
      {person?.mustEnroll ? (
        <p role="alert" className="rounded-lg border border-amber-300 bg-amber-50 px-3 py-2 text-sm text-amber-900">
          Your organization requires two-factor sign-in. Set up an authenticator app below to continue to the portal.
        </p>
      ) : null}
      {notice.done && DONE[notice.done] ? (
        <p role="status" className="rounded-lg bg-emerald-50 px-3 py-2 text-sm text-emerald-800">
          {DONE[notice.done]}
        </p>
      ) : null}
      {notice.error ? <ErrorState>{ERRORS[notice.error] ?? "That change was refused."}</ErrorState> : null}
      {person ? (
        <>
          <TotpSection person={person} />
          <PasskeySection passkeys={person.passkeys} />
          {person.managesOrganization ? <OrganizationSection requires={person.organizationRequires} /> : null}
        </>
      ) : null}
    </div>
  );
}
