"use client";

import { createContext, useContext, useMemo, type ReactNode } from "react";
import type { PublicMessage, PublicMessageOf } from "@/lib/contract/shapes";

type Body = PublicMessageOf<"body">;

const Versions = createContext<ReadonlyMap<string, Body[]>>(new Map());

/**
 * Every loaded publication of each task, by version, so a body can tell whether
 * a later version replaced it (then it collapses) and compare itself with it.
 */
export function ReportVersionsProvider({
  messages,
  children,
}: {
  messages: readonly PublicMessage[];
  children: ReactNode;
}) {
  const byTask = useMemo(() => {
    const map = new Map<string, Body[]>();
    for (const m of messages) {
      if (m.kind !== "body" || !m.taskId) continue;
      const list = map.get(m.taskId);
      if (list) list.push(m);
      else map.set(m.taskId, [m]);
    }
    for (const list of map.values()) list.sort((a, b) => (a.meta?.version ?? a.seq) - (b.meta?.version ?? b.seq));
    return map;
  }, [messages]);
  return <Versions.Provider value={byTask}>{children}</Versions.Provider>;
}

/** The task's bodies oldest first; just this one when nothing else is loaded. */
export function useTaskBodies(message: Body): Body[] {
  const map = useContext(Versions);
  return (message.taskId && map.get(message.taskId)) || [message];
}
