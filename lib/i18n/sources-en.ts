// UI strings of a research task's sources (components/task-sources.tsx, components/report-body.tsx).
// Spread into en.ts; sources-zh.ts is kept key for key by its type.

export const enSources = {
  sourcesTitle: "Sources",
  sourcesRead: "{n} sources read",
  sourcesReadOne: "1 source read",
  sourcesSearches: "{n} web searches",
  sourcesNone: "No sources read yet",
  sourcesWithoutOff: "Written without sources: web search is turned off on this server",
  sourcesWithoutUnavailable: "Written without sources: web search was unavailable",
  sourcesWithoutNoneFound: "Written without sources: no page could be read",
  sourceCitation: "Source {n}",
};
