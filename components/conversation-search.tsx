"use client";

import Link from "next/link";
import { useQuery } from "@tanstack/react-query";
import { useEffect, useId, useState } from "react";
import { searchConversations } from "@/lib/client/api";
import { useI18n } from "@/lib/client/i18n";
import { MAX_SEARCH_CHARS } from "@/lib/contract/input-bounds";
import { CloseIcon } from "./icons";
import { SearchIcon } from "./chat-icons";
import { Button } from "./ui/button";

const DEBOUNCE_MS = 250;

/** The search box; `onQuery` gets the trimmed text it is searching for ("" = not searching). */
export function ConversationSearchBox({ value, onChange }: { value: string; onChange: (value: string) => void }) {
  const { t } = useI18n();
  const id = useId();
  return (
    <div className="relative">
      <label htmlFor={id} className="sr-only">
        {t("searchChats")}
      </label>
      <SearchIcon className="pointer-events-none absolute top-1/2 left-2.5 size-4 -translate-y-1/2 text-muted" />
      <input
        id={id}
        type="search"
        value={value}
        maxLength={MAX_SEARCH_CHARS}
        placeholder={t("searchPlaceholder")}
        onChange={(event) => onChange(event.target.value)}
        onKeyDown={(event) => {
          if (event.key === "Escape" && value) {
            event.preventDefault();
            onChange("");
          }
        }}
        className="h-9 w-full rounded-lg border border-border bg-bg pr-8 pl-8 text-base text-fg placeholder:text-muted hover:border-border-strong focus:border-accent focus:ring-2 focus:ring-ring/40 focus:outline-none sm:text-sm [&::-webkit-search-cancel-button]:hidden"
      />
      {value && (
        <Button
          variant="muted"
          size="icon-sm"
          onClick={() => onChange("")}
          className="absolute top-1/2 right-1 -translate-y-1/2"
        >
          <CloseIcon className="size-3.5" />
          <span className="sr-only">{t("clearSearch")}</span>
        </Button>
      )}
    </div>
  );
}

function useDebounced(value: string, ms: number): string {
  const [debounced, setDebounced] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setDebounced(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return debounced;
}

/** `text` with the first case-insensitive occurrence of `q` marked. */
function Highlighted({ text, q }: { text: string; q: string }) {
  const at = text.toLowerCase().indexOf(q.toLowerCase());
  if (at < 0 || !q) return <>{text}</>;
  return (
    <>
      {text.slice(0, at)}
      <mark className="rounded-sm bg-accent-soft px-0.5 text-fg">{text.slice(at, at + q.length)}</mark>
      {text.slice(at + q.length)}
    </>
  );
}

export function ConversationSearchResults({ query, onNavigate }: { query: string; onNavigate?: () => void }) {
  const { t } = useI18n();
  const q = useDebounced(query.trim(), DEBOUNCE_MS);
  const results = useQuery({
    queryKey: ["conversationSearch", q],
    queryFn: ({ signal }) => searchConversations(q, signal),
    enabled: q.length > 0,
    staleTime: 5_000,
  });
  const hits = results.data?.results;

  return (
    <nav aria-label={t("searchChats")} className="min-h-0 flex-1 overflow-y-auto px-2 pb-4">
      {(results.isPending || q !== query.trim()) && <p className="px-3 py-2 text-sm text-muted">{t("searching")}</p>}
      {results.isError && <p className="px-3 py-2 text-sm text-danger">{t("searchFailed")}</p>}
      {/* Always there, so screen readers hear the verdict when it appears. */}
      <p role="status" className="px-3 text-sm text-muted empty:hidden">
        {hits && hits.length === 0 && q === query.trim() ? t("searchNoResults", { q }) : null}
      </p>
      {hits && hits.length > 0 && (
        <ul className="space-y-0.5">
          {hits.map((hit) => (
            <li key={hit.conversation.id}>
              <Link
                href={`/c/${hit.conversation.id}`}
                onClick={onNavigate}
                className="flex flex-col gap-0.5 rounded-lg px-3 py-2 text-sm text-fg hover:bg-subtle"
              >
                <span className="truncate font-medium">
                  <Highlighted text={hit.conversation.title.trim() || t("untitled")} q={q} />
                </span>
                {hit.snippet && (
                  <span className="line-clamp-2 text-xs text-muted">
                    <Highlighted text={hit.snippet} q={q} />
                  </span>
                )}
              </Link>
            </li>
          ))}
        </ul>
      )}
    </nav>
  );
}
