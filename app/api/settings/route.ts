import { route } from "@/lib/http/route";
import { settingsPatchBody } from "@/lib/contract/settings";
import { langCookieOf, pickLang } from "@/lib/i18n/server";
import { getSettings } from "@/lib/settings/queries";
import { updateSettings } from "@/lib/settings/update-settings";

export const dynamic = "force-dynamic";

/** What this browser is shown while the account has not chosen a language. */
const browserLang = (req: Request) =>
  pickLang({ cookie: langCookieOf(req.headers.get("cookie")), acceptLanguage: req.headers.get("accept-language") });

export const GET = route({}, async ({ req, user }) => getSettings(user.id, browserLang(req)));

export const PATCH = route({ body: settingsPatchBody }, async ({ req, user, body }) =>
  updateSettings(user.id, body, browserLang(req)),
);
