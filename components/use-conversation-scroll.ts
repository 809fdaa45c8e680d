"use client";

import { useCallback, useEffect, useLayoutEffect, useRef, useState, type RefObject } from "react";
import type { PublicMessage } from "@/lib/contract/shapes";
import { useConversationLanding } from "./use-conversation-landing";

const NEAR_BOTTOM_PX = 96;
/** Within this of the top, the page before the window starts loading. */
const NEAR_TOP_PX = 600;

interface Older {
  loadOlder: () => Promise<boolean>;
  hasOlder: boolean;
}

/** Loads the page before the window, one request at a time, remembering a failure (the reader retries by hand). */
export function useOlderLoader({ loadOlder: fetchOlder }: Older) {
  const [olderFailed, setOlderFailed] = useState(false);
  const loading = useRef(false);
  const loadOlder = useCallback(async (): Promise<boolean> => {
    if (loading.current) return false;
    loading.current = true;
    setOlderFailed(false);
    try {
      return await fetchOlder();
    } catch {
      setOlderFailed(true);
      return false;
    } finally {
      loading.current = false;
    }
  }, [fetchOlder]);
  return { loadOlder, olderFailed };
}

/**
 * Follow new content only while the reader is at the bottom; never yank them
 * away from what they're reading. Content also changes height without changing
 * the item count (a progress group moving down, a stream replaced by its stored
 * message, late-loading times), and the viewport shrinks when the status row or
 * the delivery picker grows: a ResizeObserver follows those too.
 */
function useFollowBottom(
  scrollRef: RefObject<HTMLDivElement | null>,
  logRef: RefObject<HTMLDivElement | null>,
  contentSize: number,
  thinking: boolean,
) {
  const stickToBottomRef = useRef(true);
  useLayoutEffect(() => {
    const el = scrollRef.current;
    if (el && stickToBottomRef.current) el.scrollTop = el.scrollHeight;
  }, [scrollRef, contentSize, thinking]);
  useEffect(() => {
    const scroller = scrollRef.current;
    const log = logRef.current;
    if (!scroller || !log || typeof ResizeObserver === "undefined") return;
    const observer = new ResizeObserver(() => {
      if (stickToBottomRef.current) scroller.scrollTop = scroller.scrollHeight;
    });
    observer.observe(scroller);
    observer.observe(log);
    return () => observer.disconnect();
  }, [scrollRef, logRef]);
  return stickToBottomRef;
}

/**
 * Older pages go on top of what the reader is looking at: keep its distance from
 * the bottom, so nothing moves under their eyes (scroll anchoring may already
 * have done it; setting the same absolute position again is harmless).
 */
function useKeepPlaceOnOlder(
  scrollRef: RefObject<HTMLDivElement | null>,
  stickToBottomRef: RefObject<boolean>,
  oldestSeq: number | undefined,
) {
  const fromBottomRef = useRef(0);
  const previousOldest = useRef(oldestSeq);
  useLayoutEffect(() => {
    const el = scrollRef.current;
    const before = previousOldest.current;
    previousOldest.current = oldestSeq;
    if (!el || before === undefined || oldestSeq === undefined || oldestSeq >= before || stickToBottomRef.current)
      return;
    el.scrollTop = el.scrollHeight - fromBottomRef.current;
  }, [scrollRef, stickToBottomRef, oldestSeq]);
  return fromBottomRef;
}

/** The conversation's scroller: follows the bottom, pages back near the top, lands on a linked body. */
export function useConversationScroll(opts: {
  messages: readonly PublicMessage[] | undefined;
  older: Older;
  contentSize: number;
  thinking: boolean;
}) {
  const scrollRef = useRef<HTMLDivElement>(null);
  const logRef = useRef<HTMLDivElement>(null);
  const { hasOlder } = opts.older;
  const { loadOlder, olderFailed } = useOlderLoader(opts.older);
  const stickToBottomRef = useFollowBottom(scrollRef, logRef, opts.contentSize, opts.thinking);
  const fromBottomRef = useKeepPlaceOnOlder(scrollRef, stickToBottomRef, opts.messages?.[0]?.seq);
  useConversationLanding(scrollRef, stickToBottomRef, { messages: opts.messages, hasOlder, olderFailed, loadOlder });

  function onScroll() {
    const el = scrollRef.current;
    if (!el) return;
    fromBottomRef.current = el.scrollHeight - el.scrollTop;
    if (el.scrollTop < NEAR_TOP_PX && hasOlder && !olderFailed) void loadOlder();
    stickToBottomRef.current = el.scrollHeight - el.scrollTop - el.clientHeight < NEAR_BOTTOM_PX;
    // Scroll anchoring keeps what the reader is looking at in place when
    // content above it changes: right while reading history, wrong while
    // following the bottom (a progress group moving below a body would scroll
    // us up by its height and unpin us).
    el.style.overflowAnchor = stickToBottomRef.current ? "none" : "auto";
  }

  return { scrollRef, logRef, onScroll, stickToBottomRef, loadOlder, olderFailed };
}
