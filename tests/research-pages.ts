/** A real-looking article page: main text among navigation, a sidebar, scripts, a footer and a form (lib/research tests). */
const para = (s: string, n: number) => `<p>${Array.from({ length: n }, () => s).join(" ")}</p>`;

export const ARTICLE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Sea otters use tools | Coastal Review</title>
<meta property="og:site_name" content="Coastal Review"><style>.nav{color:red}</style>
<script>window.tracking = "TRACKING-SCRIPT-TEXT";</script></head>
<body>
<header><nav class="nav"><a href="/">Home</a> <a href="/news">NAV-LINK-NEWS</a> <a href="/about">NAV-LINK-ABOUT</a></nav></header>
<aside class="sidebar"><h3>Popular</h3><ul><li><a href="/x">SIDEBAR-POPULAR-ITEM</a></li></ul></aside>
<main><article>
<h1>Sea otters use tools</h1>
<p class="byline">By A. Writer</p>
${para("Sea otters in Monterey Bay crack mussels on stones they carry in a pouch under their forelegs.", 4)}
${para("Researchers counted 1,842 hammering bouts in the 2023 survey, most of them by females with pups.", 4)}
<h2>Why it matters</h2>
${para("Tool use among marine mammals is rare, and the stones leave wear marks that archaeologists can date.", 4)}
<script>document.write("INLINE-SCRIPT-IN-ARTICLE")</script>
</article></main>
<footer><p>FOOTER-COPYRIGHT Coastal Review 2024</p><form><input name="email"> SUBSCRIBE-FORM</form></footer>
</body></html>`;
