import { useVirtualizer, type Virtualizer } from "@tanstack/react-virtual";
import { useEffect, useRef, type RefObject } from "react";
import type { CallColumnId } from "@/lib/portal/call-columns";
import type { useTimeZone } from "../portal/time-zone";
import type { CallRow, NameMap } from "./call-columns";
import type { CallPages } from "./use-call-pages";

export const ROW_HEIGHT = 44;
export const CARD_HEIGHT = 104;
/** Start loading the next page when the viewport is this many rows from the end. */
const PREFETCH_ROWS = 60;
/**
 * The window's height before the browser has measured it: the server render (and hydration) lays out this many
 * pixels of rows, taller than the call log's region on most screens, so a first page the server read is in the HTML.
 */
const UNMEASURED_HEIGHT = 1200;

/** What the table and the card list share: the loaded calls, their columns and the open handler. */
export interface BodyProps {
  rows: CallRow[];
  columns: CallColumnId[];
  accounts: NameMap;
  suppliers: NameMap;
  zone: ReturnType<typeof useTimeZone>;
  calls: CallPages;
  filtered: boolean;
  resetKey: string;
  onOpen: (id: string) => void;
  /** The rate card's name of a call's destination, once known. */
  destinationName: (call: CallRow) => string | undefined;
}

/** The virtualiser over the loaded calls, loading the next page as the end comes into view. */
export function useCallWindow(props: BodyProps, scrollRef: RefObject<HTMLDivElement | null>, size: number) {
  const { rows, calls, resetKey } = props;
  // TanStack Virtual keeps mutable state outside React; it is used as documented.
  // eslint-disable-next-line react-hooks/incompatible-library
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => size,
    overscan: 15,
    initialRect: { width: 0, height: UNMEASURED_HEIGHT },
  });
  const virtualRows = virtualizer.getVirtualItems();
  const lastVisible = virtualRows.length ? virtualRows[virtualRows.length - 1].index : -1;

  const { hasNextPage, isFetchingNextPage, fetchNextPage, isError } = calls;
  useEffect(() => {
    if (hasNextPage && !isFetchingNextPage && !isError && lastVisible >= rows.length - PREFETCH_ROWS) {
      void fetchNextPage();
    }
  }, [hasNextPage, isFetchingNextPage, isError, lastVisible, rows.length, fetchNextPage]);

  // New filters start at the top.
  useEffect(() => {
    scrollRef.current?.scrollTo({ top: 0 });
  }, [resetKey, scrollRef]);

  // Keyboard focus moving to a row that the virtualiser has yet to render: focus it once it is there.
  const pendingFocus = useRef<number | null>(null);
  const focusPending = () => {
    if (pendingFocus.current === null) return;
    const el = scrollRef.current?.querySelector<HTMLElement>(
      `[aria-rowindex="${pendingFocus.current + 2}"], [data-index="${pendingFocus.current}"]`,
    );
    if (el) {
      el.focus({ preventScroll: true });
      pendingFocus.current = null;
    }
  };
  useEffect(focusPending);

  const onKey = (e: React.KeyboardEvent, index: number, id: string) => {
    if (e.key === "Enter" || e.key === " ") {
      e.preventDefault();
      props.onOpen(id);
    } else if (e.key === "ArrowDown" || e.key === "ArrowUp") {
      // Arrow keys walk the rows; the virtualiser brings the next one into the DOM first.
      e.preventDefault();
      const from = pendingFocus.current ?? index; // keys pressed faster than rows render
      const target = Math.min(rows.length - 1, Math.max(0, from + (e.key === "ArrowDown" ? 1 : -1)));
      virtualizer.scrollToIndex(target, { align: "auto" });
      pendingFocus.current = target;
      focusPending();
    }
  };

  const paddingTop = virtualRows.length ? virtualRows[0].start : 0;
  const paddingBottom = virtualRows.length ? virtualizer.getTotalSize() - virtualRows[virtualRows.length - 1].end : 0;
  return {
    virtualizer: virtualizer as Virtualizer<HTMLDivElement, Element>,
    virtualRows,
    paddingTop,
    paddingBottom,
    onKey,
  };
}
