// Words that name the kind of thing rather than which one: "stop the research"
// says nothing about which research, so it behaves like an omitted task.
const GENERIC_WORDS = new Set(
  (
    "the a an my our your their his her its it this that these those of on about for to in into with and or " +
    "research researching report reports task tasks job jobs analysis study investigation background work one ones " +
    "please all everything thing stuff current running active ongoing"
  ).split(" "),
);
const GENERIC_CJK = /研究|调研|调查|分析|任务|报告|后台|那个|这个|我的|关于|一下|的|了|吧|吗|呢|全部|所有/g;

function fold(s: string): string {
  return s
    .normalize("NFKC")
    .toLowerCase()
    .replace(/[“”"'‘’「」『』《》]/g, "")
    .replace(/\s+/g, " ")
    .trim();
}

function stem(w: string): string {
  if (w.length > 4 && w.endsWith("ies")) return `${w.slice(0, -3)}y`;
  if (w.length > 3 && w.endsWith("s") && !w.endsWith("ss")) return w.slice(0, -1);
  return w;
}

interface QueryTokens {
  words: string[];
  cjk: string[];
}

function tokens(s: string, dropGeneric: boolean): QueryTokens {
  const f = fold(s);
  const words = (f.match(/[\p{L}\p{N}]+/gu) ?? [])
    .filter((w) => !/\p{Script=Han}/u.test(w))
    .filter((w) => !dropGeneric || !GENERIC_WORDS.has(w))
    .map(stem);
  const cjk = (f.match(/\p{Script=Han}+/gu) ?? [])
    .map((r) => (dropGeneric ? r.replace(GENERIC_CJK, " ") : r))
    .flatMap((r) => r.split(" "))
    .filter((r) => r.length > 0);
  return { words, cjk };
}

function isSubsequence(needle: string, hay: string): boolean {
  let i = 0;
  for (const ch of hay) if (ch === needle[i]) i++;
  return i === needle.length;
}

/**
 * Which of `tasks` the user meant by `query`, most specific rule first: exact
 * id or case-insensitive title; then one containing the other ("the EU battery
 * supply chain research"); then every meaningful word of the query appearing in
 * the title ("battery" finds "EU battery supply chain"; Chinese runs as
 * in-order characters, so 组合风险 finds 组合的风险). No query, or only generic
 * words, matches them all. Callers treat more than one match as ambiguous.
 */
export function matchTasks<T extends { id: string; title: string }>(tasks: T[], query?: string | null): T[] {
  const q = fold(query ?? "");
  if (!q) return tasks;
  const exact = tasks.filter((t) => t.id === query!.trim() || fold(t.title) === q);
  if (exact.length > 0) return exact;
  const contained = tasks.filter((t) => {
    const title = fold(t.title);
    return title.includes(q) || (title.length >= 3 && q.includes(title));
  });
  if (contained.length > 0) return contained;
  const want = tokens(q, true);
  if (want.words.length === 0 && want.cjk.length === 0) return tasks;
  return tasks.filter((t) => {
    const have = tokens(t.title, false);
    const titleWords = new Set(have.words);
    const titleHan = have.cjk.join("");
    return want.words.every((w) => titleWords.has(w)) && want.cjk.every((r) => isSubsequence(r, titleHan));
  });
}
