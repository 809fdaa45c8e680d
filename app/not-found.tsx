import Link from "next/link";
import { HeraldMark } from "@/components/icons";
import { dictionaries } from "@/lib/i18n/dictionaries";
import { getServerLang } from "@/lib/i18n/server";

// A Server Component on purpose: Next ships the root not-found with every
// route, so it stays free of client code. The language comes from the cookie
// the client keeps in sync with its choice.
export default async function NotFound() {
  const t = dictionaries[await getServerLang()];
  return (
    <main className="flex min-h-dvh flex-col items-center justify-center gap-6 px-6 text-center">
      <HeraldMark className="size-10" />
      <div className="space-y-2">
        <p className="text-sm font-medium tracking-wide text-muted">404</p>
        <h1 className="text-2xl font-semibold">{t.notFoundTitle}</h1>
        <p className="max-w-sm text-muted">{t.notFoundLead}</p>
      </div>
      <Link
        href="/"
        className="rounded-lg bg-accent px-4 py-2 text-sm font-medium text-accent-fg hover:bg-accent-hover"
      >
        {t.goHome}
      </Link>
    </main>
  );
}
