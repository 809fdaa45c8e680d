import type { MetadataRoute } from "next";

/**
 * The web app manifest (/manifest.webmanifest): with it, the icons in public/
 * and a service-worker-free standalone display, browsers offer "Install" /
 * "Add to Home Screen". Colours match the light theme in app/globals.css.
 */
export default function manifest(): MetadataRoute.Manifest {
  return {
    id: "/",
    name: "Herald",
    short_name: "Herald",
    description: "Chat with background tasks that keep their promises.",
    start_url: "/",
    scope: "/",
    display: "standalone",
    orientation: "any",
    background_color: "#f8fafc",
    theme_color: "#4f46e5",
    categories: ["productivity"],
    icons: [
      { src: "/icon.svg", sizes: "any", type: "image/svg+xml", purpose: "any" },
      { src: "/icon-192.png", sizes: "192x192", type: "image/png", purpose: "any" },
      { src: "/icon-512.png", sizes: "512x512", type: "image/png", purpose: "any" },
      { src: "/icon-maskable.svg", sizes: "any", type: "image/svg+xml", purpose: "maskable" },
      { src: "/icon-maskable-512.png", sizes: "512x512", type: "image/png", purpose: "maskable" },
      { src: "/apple-touch-icon.png", sizes: "180x180", type: "image/png", purpose: "any" },
    ],
  };
}
