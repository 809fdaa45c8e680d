"use client";

import { useEffect, useRef, type RefObject } from "react";
import type { PublicMessage } from "@/lib/contract/shapes";

const NEAR_BOTTOM_PX = 96;
/** How far back a link to a body (#pub-…) may page to find it: 40 pages of 50. */
const MAX_HASH_PAGES = 40;

interface Paging {
  messages: readonly PublicMessage[] | undefined;
  hasOlder: boolean;
  olderFailed: boolean;
  loadOlder: () => Promise<boolean>;
}

/**
 * Where a conversation opens: a window shorter than the screen cannot be
 * scrolled up, so the page before it is fetched right away; a link like
 * /c/<id>#pub-<publicationId> lands on that body once history has loaded,
 * paging back for it when it is older than the newest page.
 */
export function useConversationLanding(
  scrollRef: RefObject<HTMLDivElement | null>,
  stickToBottomRef: RefObject<boolean>,
  paging: Paging,
) {
  const { messages, hasOlder, olderFailed, loadOlder } = paging;
  useEffect(() => {
    const el = scrollRef.current;
    if (el && messages && hasOlder && !olderFailed && el.scrollHeight <= el.clientHeight + NEAR_BOTTOM_PX)
      void loadOlder();
  }, [scrollRef, messages, hasOlder, olderFailed, loadOlder]);

  const handled = useRef(false);
  const pages = useRef(0);
  useEffect(() => {
    if (handled.current || !messages) return;
    const hash = decodeURIComponent(window.location.hash.slice(1));
    const target = hash ? document.getElementById(hash) : null;
    if (hash && !target && hasOlder && !olderFailed && pages.current < MAX_HASH_PAGES) {
      pages.current += 1;
      stickToBottomRef.current = false;
      void loadOlder();
      return;
    }
    handled.current = true;
    if (target) {
      stickToBottomRef.current = false;
      target.scrollIntoView({ block: "start" });
      target.focus({ preventScroll: true });
    }
  }, [stickToBottomRef, messages, hasOlder, olderFailed, loadOlder]);
}
