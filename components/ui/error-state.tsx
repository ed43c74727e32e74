import type { ReactNode } from "react";

const TONES = {
  error: "border-red-200 bg-red-50 text-red-800",
  warning: "border-amber-200 bg-amber-50 text-amber-900",
} as const;

/** An inline alert box (a failed action, a warning); announced to screen readers. */
export function ErrorState({
  children,
  tone = "error",
  className = "",
}: {
  children: ReactNode;
  tone?: keyof typeof TONES;
  className?: string;
}) {
  return (
    <p role="alert" className={`${className ? `${className} ` : ""}rounded-lg border ${TONES[tone]} px-3 py-2 text-sm`}>
      {children}
    </p>
  );
}
