"use client";

import { createContext, useContext, type ReactNode } from "react";
import type { PortalActions } from "@/lib/portal/portal-actions";

const Context = createContext<PortalActions | null>(null);

/** Hands the portal's server functions (given by the layout) to the components below. */
export function PortalActionsProvider({ actions, children }: { actions: PortalActions; children: ReactNode }) {
  return <Context.Provider value={actions}>{children}</Context.Provider>;
}

export function usePortalActions(): PortalActions {
  const actions = useContext(Context);
  if (!actions) throw new Error("usePortalActions outside the portal layout");
  return actions;
}
