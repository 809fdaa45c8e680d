import type { SearchProvider } from "./search-types";

/** `HERALD_SEARCH_PROVIDER=none`: research without the web; the report says it was written without sources. */
export const noneProvider: SearchProvider = {
  name: "none",
  search: async () => [],
};
