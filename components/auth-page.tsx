import type { ReactNode } from "react";
import { HeraldMark } from "./icons";
import { LanguageSelect } from "./language-select";

/** The frame every signed-out page shares: language, mark, title and lead, the content, then a line of links. */
export function AuthPage({
  title,
  lead,
  footer,
  children,
}: {
  title: string;
  lead?: string;
  footer: ReactNode;
  children: ReactNode;
}) {
  return (
    <div className="flex min-h-dvh flex-col">
      <div className="flex justify-end p-4">
        <LanguageSelect />
      </div>
      <main className="flex flex-1 items-start justify-center px-4 pt-4 pb-16 sm:items-center sm:pt-0">
        <div className="w-full max-w-sm">
          <div className="mb-8 flex flex-col items-center gap-3 text-center">
            <HeraldMark className="size-10" />
            <h1 className="text-2xl font-semibold tracking-tight">{title}</h1>
            {lead && <p className="text-sm text-muted">{lead}</p>}
          </div>
          {children}
          <p className="mt-6 text-center text-sm text-muted">{footer}</p>
        </div>
      </main>
    </div>
  );
}

/** The card around a signed-out page's form or message. */
export const AUTH_CARD = "space-y-4 rounded-2xl border border-border bg-surface p-6 shadow-sm";
export const AUTH_LINK = "font-medium text-accent-text underline-offset-4 hover:underline";
