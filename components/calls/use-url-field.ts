"use client";

import { useEffect, useRef, useState } from "react";

/**
 * A filter typed into a box whose applied value lives in the URL: the text is kept locally while it is typed,
 * written to the URL once typing pauses (`delay` ms) and the text is valid, or only when asked (`commit()`,
 * on Enter or leaving the field) when `delay` is null. When the URL changes under it (back button, "Clear
 * filters", a shared link) the box shows what the URL says, unless the text already means the same (`same`). The
 * URL catching up with a value this box applied is no such change: on a busy machine it lands after the person typed
 * on, and must not put the older text back.
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
  // Values written to the URL whose navigation has not landed yet, oldest first.
  const [inFlight, setInFlight] = useState<T[]>([]);
  if (!same(seen, urlValue)) {
    setSeen(urlValue);
    const echo = inFlight.findIndex((v) => same(v, urlValue));
    setInFlight(echo < 0 ? [] : inFlight.slice(echo + 1));
    if (echo < 0 && !same(text, urlValue)) setText(urlValue);
  }
  const isValid = valid(text);
  const pending = isValid && !same(text, urlValue);

  const applyAndRemember = (value: T) => {
    setInFlight((list) => (list.length && same(list[list.length - 1], value) ? list : [...list, value]));
    apply(value);
  };
  // The latest apply: it closes over the other filters, which change as the URL does.
  const applyRef = useRef(applyAndRemember);
  useEffect(() => {
    applyRef.current = applyAndRemember;
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
      if (pending) applyAndRemember(text);
    },
  };
}
