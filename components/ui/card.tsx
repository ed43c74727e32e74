import type { ComponentPropsWithoutRef, ElementType, ReactNode } from "react";

const PADDING = { md: "p-5", sm: "px-4 py-3", none: "" } as const;

type CardTag = "section" | "div" | "figure" | "form" | "article" | "ul";

export type CardProps<T extends CardTag = "section"> = {
  /** The element: a section by default; a figure for charts, a form for filter bars. */
  as?: T;
  padding?: keyof typeof PADDING;
  className?: string;
  children?: ReactNode;
} & Omit<ComponentPropsWithoutRef<T>, "className" | "children">;

/** The portal's panel: white, rounded, hairline border, soft shadow. */
export function Card<T extends CardTag = "section">({ as, padding = "md", className = "", ...rest }: CardProps<T>) {
  const Tag = (as ?? "section") as ElementType;
  return (
    <Tag
      className={`rounded-xl border border-slate-200 bg-white shadow-sm ${PADDING[padding]} ${className}`.trim()}
      {...rest}
    />
  );
}

/** The small grey title of a card ("Totals", "Latest calls"). */
export function CardTitle({ id, children, className = "" }: { id?: string; children: ReactNode; className?: string }) {
  return (
    <h2 id={id} className={`text-sm font-medium text-slate-600 ${className}`.trim()}>
      {children}
    </h2>
  );
}
