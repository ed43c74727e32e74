"use client";

import { useEffect, useRef, useState } from "react";

/**
 * A filter typed into a box whose applied value lives in the URL: the text is kept locally while it is typed,
 * written to the URL once typing pauses (`delay` ms) and the text is valid, or only when asked (`commit()`,
 * on Enter or leaving the field) when `delay` is null. When the URL changes under it (back button, "Clear
 * filters", a shared link) the box shows what the URL says, unless the text already means the same (`same`).
 */
export function useUrlField<T>({
  urlValue,
  same,
  valid,
  apply,
  delay,
}: {
  urlValue: T;
  /** Whether the text means the applied value ("+44" and "44"). */
  same: (text: T, url: T) => boolean;
  valid: (text: T) => boolean;
  /** Writes the text to the URL. */
  apply: (text: T) => void;
  delay: number | null;
}) {
  const [text, setText] = useState(urlValue);
  const [seen, setSeen] = useState(urlValue);
  if (!same(seen, urlValue)) {
    setSeen(urlValue);
    if (!same(text, urlValue)) setText(urlValue);
  }
  const isValid = valid(text);
  const pending = isValid && !same(text, urlValue);

  // The latest apply: it closes over the other filters, which change as the URL does.
  const applyRef = useRef(apply);
  useEffect(() => {
    applyRef.current = apply;
  });
  useEffect(() => {
    if (delay === null || !pending) return;
    const t = setTimeout(() => applyRef.current(text), delay);
    return () => clearTimeout(t);
  }, [text, pending, delay]);

  return {
    text,
    setText,
    valid: isValid,
    /** Applies the text now (Enter, blur), when it is valid and differs from the URL. */
    commit: () => {
      if (pending) apply(text);
    },
  };
}
