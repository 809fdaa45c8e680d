"use client";

import { useEffect, useLayoutEffect, useRef, useState } from "react";
import { draftKey, readDraft, writeDraft } from "@/lib/client/draft";
import { pushToast } from "@/lib/client/toasts";

const MAX_HEIGHT_PX = 200;

/**
 * The composer's text: kept as a draft across a reload or an ended session, for
 * the same account (lib/client/draft.ts); focused on open where a keyboard is
 * not popped up by it; set by an example prompt; grown with the text up to a
 * cap, then scrolled inside.
 */
export function useComposerText(autoFocus: boolean, prefill: { text: string; nonce: number } | undefined) {
  const [value, setValue] = useState("");
  const textareaRef = useRef<HTMLTextAreaElement>(null);
  const draftRef = useRef<string | null>(null);
  useEffect(() => {
    const key = draftKey(window.location.pathname);
    draftRef.current = key;
    // Only the account that typed it gets it back; text typed meanwhile wins.
    void readDraft(key).then((saved) => {
      if (!saved || draftRef.current !== key || textareaRef.current?.value) return;
      setValue(saved);
      pushToast({ tone: "info", key: "draftRestored" });
    });
  }, []);
  useEffect(() => {
    if (draftRef.current) writeDraft(draftRef.current, value);
  }, [value]);

  useEffect(() => {
    if (autoFocus && window.matchMedia("(pointer: fine)").matches) textareaRef.current?.focus({ preventScroll: true });
  }, [autoFocus]);
  useEffect(() => {
    if (!prefill) return;
    // eslint-disable-next-line react-hooks/set-state-in-effect -- an outside control (an example prompt) sets the text
    setValue(prefill.text);
    textareaRef.current?.focus();
  }, [prefill]);

  useLayoutEffect(() => {
    const el = textareaRef.current;
    if (!el) return;
    el.style.height = "auto";
    el.style.height = `${Math.min(el.scrollHeight, MAX_HEIGHT_PX)}px`;
  }, [value]);

  return { value, setValue, textareaRef };
}
