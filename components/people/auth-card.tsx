import type { ReactNode } from "react";

/** The centred card of the pages a person sees before signing in (sign-in, reset, invitation, verification). */
export function AuthCard({ title, intro, children }: { title: string; intro?: ReactNode; children: ReactNode }) {
  return (
    <main className="grid min-h-screen place-items-center px-4 py-12">
      <div className="w-full max-w-md">
        <div className="mb-8 flex items-center gap-2">
          <span aria-hidden className="grid size-9 place-items-center rounded-xl bg-brand-600 font-semibold text-white">
            C
          </span>
          <span className="text-xl font-semibold tracking-tight">Callbook</span>
        </div>
        <div className="rounded-2xl border border-slate-200 bg-white p-6 shadow-sm sm:p-8">
          <h1 className="text-lg font-semibold">{title}</h1>
          {intro ? <p className="mt-1 text-sm text-slate-600">{intro}</p> : null}
          {children}
        </div>
      </div>
    </main>
  );
}

/** A message at the top of such a card. */
export function AuthNotice({ children }: { children: ReactNode }) {
  return (
    <p role="status" className="mt-4 rounded-lg bg-slate-100 px-3 py-2 text-sm text-slate-700">
      {children}
    </p>
  );
}

/** A labelled input of such a card's form. */
export function AuthField({
  id,
  label,
  help,
  ...input
}: { id: string; label: string; help?: string } & React.ComponentPropsWithoutRef<"input">) {
  return (
    <div>
      <label htmlFor={id} className="block text-sm font-medium text-slate-700">
        {label}
      </label>
      <input
        id={id}
        name={id}
        aria-describedby={help ? `${id}-help` : undefined}
        className="mt-1 block w-full rounded-lg border border-slate-300 px-3 py-2 text-sm shadow-xs focus:border-brand-500 focus:outline-none focus:ring-2 focus:ring-brand-100"
        {...input}
      />
      {help ? (
        <p id={`${id}-help`} className="mt-1 text-xs text-slate-500">
          {help}
        </p>
      ) : null}
    </div>
  );
}
