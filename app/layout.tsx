import type { Metadata, Viewport } from "next";
import type { ReactNode } from "react";
import { getServerLang } from "@/lib/i18n/server";
import { getSessionUser } from "@/lib/auth/session";
import { accountReading } from "@/lib/settings/queries";
import { Providers } from "./providers";
import "./globals.css";

export const metadata: Metadata = {
  title: { default: "Herald", template: "%s · Herald" },
  description: "Chat with background tasks that keep their promises.",
  // The manifest link comes from app/manifest.ts; iOS reads its own tags for Add to Home Screen.
  icons: { apple: [{ url: "/apple-touch-icon.png", sizes: "180x180", type: "image/png" }] },
  appleWebApp: { capable: true, title: "Herald", statusBarStyle: "default" },
};

export const viewport: Viewport = {
  width: "device-width",
  initialScale: 1,
  viewportFit: "cover",
  themeColor: [
    { media: "(prefers-color-scheme: light)", color: "#f8fafc" },
    { media: "(prefers-color-scheme: dark)", color: "#0b1120" },
  ],
};

export default async function RootLayout({ children }: { children: ReactNode }) {
  // A signed-in account's own language wins, so a second device starts in it.
  const user = await getSessionUser().catch(() => null);
  const account = user ? await accountReading(user.id).catch(() => null) : null;
  const accountLang = account?.language ?? null;
  const lang = await getServerLang(accountLang);
  return (
    <html lang={lang === "zh" ? "zh-CN" : "en"} suppressHydrationWarning>
      <body className="min-h-dvh bg-bg font-sans text-fg antialiased">
        <Providers
          initialLang={lang}
          accountLang={accountLang}
          accountTimeZone={account?.timeZone ?? null}
          signedIn={user !== null}
        >
          {children}
        </Providers>
      </body>
    </html>
  );
}
