import { existsSync } from "node:fs";

// No browser downloads on these machines: Debian's chromium (docs/development.md#tests).
const ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
  "--disable-quic",
];

const first = (paths: string[]) => paths.find((p) => existsSync(p));
const FULL = ["/usr/bin/chromium", "/usr/bin/chromium-browser"];

/**
 * What every spec runs in: chromium's headless shell, the same engine without the full browser's UI layers (it ran
 * the same specs 15–20 % faster here), else the full browser.
 */
export const launchOptions = {
  executablePath:
    process.env.PLAYWRIGHT_CHROMIUM_EXECUTABLE_PATH ?? first(["/usr/lib/chromium/chromium-headless-shell", ...FULL]),
  args: ARGS,
};

/**
 * For specs about the notification permission prompt: the headless shell answers `Notification.permission` with
 * "denied" before anyone is asked, where a user's browser (and the full chromium) says "default".
 */
export const fullBrowser = {
  launchOptions: { executablePath: first(FULL) ?? launchOptions.executablePath, args: ARGS },
};
