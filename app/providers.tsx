"use client";

import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { useEffect, useState, type ReactNode } from "react";
import { ResponseError } from "@/lib/client/api";
import { I18nProvider } from "@/lib/client/i18n";
import { adoptBrowserTimeZone, seedAccountTimeZone } from "@/lib/client/time-zone";
import type { Lang } from "@/lib/i18n/dictionaries";

function makeQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: {
        // The feed patches caches live; refetching is the safety net, not the mechanism.
        staleTime: 30_000,
        refetchOnWindowFocus: true,
        retry: (failureCount, error) => {
          if (error instanceof ResponseError && !error.retryable) return false;
          return failureCount < 3;
        },
      },
    },
  });
}

export function Providers({
  initialLang,
  accountLang,
  accountTimeZone = null,
  signedIn,
  children,
}: {
  initialLang: Lang;
  accountLang: Lang | null;
  /** The signed-in account's zone: every time on the page is read in it. */
  accountTimeZone?: string | null;
  signedIn: boolean;
  children: ReactNode;
}) {
  // One client per page load: caches must never outlive the session that filled them.
  const [queryClient] = useState(makeQueryClient);
  seedAccountTimeZone(accountTimeZone);
  useEffect(() => {
    if (signedIn && accountTimeZone === null) adoptBrowserTimeZone();
  }, [signedIn, accountTimeZone]);
  return (
    <QueryClientProvider client={queryClient}>
      <I18nProvider initialLang={initialLang} accountLang={accountLang} signedIn={signedIn}>
        {children}
      </I18nProvider>
    </QueryClientProvider>
  );
}
