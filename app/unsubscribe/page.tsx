import type { Metadata } from "next";
import { buttonClass } from "@/components/ui/button";
import { verifyUnsubscribeToken } from "@/lib/email/unsubscribe";
import { dictionaries } from "@/lib/i18n/dictionaries";
import { getServerLang } from "@/lib/i18n/server";

export const metadata: Metadata = { title: "Email" };
export const dynamic = "force-dynamic";

/**
 * Where an email's unsubscribe link lands, signed in or not. Opening it changes
 * nothing (mail scanners open links); the button posts the token.
 */
export default async function UnsubscribePage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const params = await searchParams;
  const token = typeof params.token === "string" ? params.token : "";
  const d = dictionaries[await getServerLang()];
  const valid = token !== "" && verifyUnsubscribeToken(token) !== null;
  let body;
  if (params.done === "1") body = <p role="status">{d.unsubscribeDone}</p>;
  else if (!valid) body = <p role="alert">{d.unsubscribeInvalid}</p>;
  else {
    body = (
      <>
        <p className="text-sm text-muted">{d.unsubscribeLead}</p>
        <form method="post" action={`/api/email/unsubscribe?token=${encodeURIComponent(token)}`}>
          <button type="submit" className={buttonClass({ variant: "primary" })}>
            {d.unsubscribeConfirm}
          </button>
        </form>
      </>
    );
  }
  return (
    <main className="mx-auto w-full max-w-md space-y-4 px-4 py-16">
      <h1 className="text-lg font-semibold">{d.unsubscribeTitle}</h1>
      {body}
    </main>
  );
}
