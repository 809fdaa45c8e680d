// What Herald's built-in offline model says (lib/agent/offline/): chat replies,
// replies to tool results, task narration and research prose. Unlike the UI
// dictionaries this table is read on the server (the worker writes the model's
// replies into messages), so nothing here may import React or client code.
// `{name}` placeholders follow translate() in ./dictionaries; values go in as
// they are, never re-read for placeholders. Both sides of an entry take the same
// placeholders (offline.test.ts checks).
import type { Lang } from "./dictionaries";

const MESSAGES = {
  // Separators. Chinese sentences run together; English ones take a space.
  sentenceGap: { en: " ", zh: "" },
  fullStop: { en: ".", zh: "。" },
  listSeparator: { en: ", ", zh: "、" },
  quote: { en: '"{text}"', zh: "「{text}」" },

  // Ordinary chat. Chinese replies open without a filler.
  chatOpenerGotIt: { en: "Got it.", zh: "" },
  chatOpenerUnderstood: { en: "Understood.", zh: "" },
  chatOpenerThanks: { en: "Thanks for the message.", zh: "" },
  chatReply: {
    en: '{opener} You said: "{quoted}". I am Herald\'s built-in offline model, so I answer deterministically and without the network. For long work, ask me to "research …" and I will keep going in the background and tell you here when it is done.',
    zh: "{opener}你说：「{quoted}」。我是 Herald 的内置离线模型，不联网，所以回答是确定性的。需要长时间的工作时，请让我“研究……”，我会在后台继续，完成后在这里告诉你。",
  },

  // Research reports (plan sections and section prose). The offline model plans by the kind of topic
  // (lib/agent/offline/replies.ts): a history gets periods and legacy, only a decision gets options and risks.
  researchSectionBackground: { en: "Background and scope", zh: "背景与范围" },
  researchSectionFacts: { en: "Key facts and figures", zh: "关键事实与数据" },
  researchSectionRecent: { en: "Recent developments", zh: "最新进展" },
  researchSectionOpenQuestions: { en: "Open questions", zh: "未解问题" },
  researchSectionOrigins: { en: "Origins and background", zh: "起源与背景" },
  researchSectionPeriods: { en: "Key periods and events", zh: "关键时期与事件" },
  researchSectionPeople: { en: "Key figures", zh: "关键人物" },
  researchSectionLegacy: { en: "Impact and legacy", zh: "影响与遗产" },
  researchSectionQuestion: { en: "The question and its context", zh: "问题与背景" },
  researchSectionOptions: { en: "Options", zh: "可选方案" },
  researchSectionRisks: { en: "Risks and trade-offs", zh: "风险与取舍" },
  researchSectionRecommendations: { en: "Recommendations", zh: "建议" },
  researchSectionCompared: { en: "What is being compared", zh: "比较对象" },
  researchSectionDifferences: { en: "Key differences", zh: "主要区别" },
  researchSectionStrengths: { en: "Strengths and weaknesses", zh: "各自优劣" },
  researchSectionSuits: { en: "Which suits whom", zh: "适用场景" },
  researchSectionPlayers: { en: "Key players", zh: "主要参与者" },
  researchSectionTrends: { en: "Trends", zh: "趋势" },
  researchSectionWhatItIs: { en: "What it is", zh: "基本概念" },
  researchSectionHowItWorks: { en: "How it works", zh: "工作原理" },
  researchSectionUses: { en: "Uses and applications", zh: "应用" },
  researchSectionLimits: { en: "Limits and open questions", zh: "局限与未解问题" },
  researchSectionRepeat: { en: "{section} ({round})", zh: "{section}（{round}）" },
  researchSectionFallback: { en: "Section {index}", zh: "第 {index} 节" },
  researchPartialNote: {
    en: "Partial report: {done} of {total} sections researched so far.",
    zh: "阶段性报告：已完成 {done}/{total} 个部分的研究。",
  },
  // The offline model's section when no page was read for it: it says so and claims nothing. Neither names the
  // request: it sits under its own heading, and a request repeated in every section is noise.
  researchStepNoSources: {
    en: "No source was read for this section, so it makes no claims.",
    zh: "本节没有读到任何资料，因此不作任何论断。",
  },
  researchStepNothingNew: {
    en: "The pages read for this report hold nothing more on this than the sections above quote.",
    zh: "为本报告读到的网页中，除上文已引用的内容外没有更多相关信息。",
  },
  // Report frame (lib/drivers/research.ts): headings the report view and share page find by their text.
  researchSummaryHeading: { en: "Summary", zh: "摘要" },
  researchSourcesHeading: { en: "Sources", zh: "参考来源" },
  researchNoSourcesOff: {
    en: "Written without sources: web search is turned off on this server, so nothing here was checked against a page.",
    zh: "本报告没有参考任何资料：此服务器关闭了网络搜索，因此内容未经任何网页核对。",
  },
  researchNoSourcesUnavailable: {
    en: "Written without sources: web search was unavailable, so nothing here was checked against a page.",
    zh: "本报告没有参考任何资料：网络搜索不可用，因此内容未经任何网页核对。",
  },
  researchNoSourcesFound: {
    en: "Written without sources: no page could be read for this request, so nothing here was checked against a page.",
    zh: "本报告没有参考任何资料：没有读到与该请求相关的网页，因此内容未经任何网页核对。",
  },
  // Host progress lines of native research (lib/drivers/research.ts), in the request's language.
  researchPlannedOne: { en: "Planned 1 section: {sections}", zh: "已规划 1 个部分：{sections}" },
  researchPlanned: { en: "Planned {n} sections: {sections}", zh: "已规划 {n} 个部分：{sections}" },
  researchDone: { en: "Researched {index}/{total}: {section}", zh: "已研究 {index}/{total}：{section}" },
  researchDoneSources: {
    en: "Researched {index}/{total}: {section} ({count} sources read so far)",
    zh: "已研究 {index}/{total}：{section}（已读 {count} 个来源）",
  },
  researchDoneSource: {
    en: "Researched {index}/{total}: {section} (1 source read so far)",
    zh: "已研究 {index}/{total}：{section}（已读 1 个来源）",
  },
  researchSearching: { en: "Searching the web for “{query}”", zh: "正在网上搜索「{query}」" },
  researchReading: { en: "Reading {sites}", zh: "正在阅读 {sites}" },
  researchUpdate: { en: "Checking sources for {section}", zh: "正在查阅「{section}」的资料" },

  // Task titles when the topic leaves nothing to name it by.
  taskTitleFallback: { en: "Research", zh: "研究任务" },

  // Task status words in replies and narration.
  statusSubmitted: { en: "starting", zh: "正在启动" },
  statusQueued: { en: "queued", zh: "排队中" },
  statusRunning: { en: "running", zh: "进行中" },
  statusUpdating: { en: "running with your new instructions", zh: "正在按新要求进行" },
  statusInputRequired: { en: "waiting for your input", zh: "等待你的输入" },
  statusSucceeded: { en: "finished", zh: "已完成" },
  statusFailed: { en: "failed", zh: "失败" },
  statusCancelled: { en: "cancelled", zh: "已取消" },
  statusDeadlineExceeded: { en: "stopped at its deadline", zh: "到点已停止" },
  statusStopping: { en: "stopping", zh: "正在停止" },

  // Replies to tool results.
  done: { en: "Done.", zh: "好的。" },
  candidatesHead: {
    en: "More than one background task matches — which one should I {verb}?",
    zh: "有不止一个后台任务符合，你想{verb}哪一个？",
  },
  candidateLine: { en: "- {title} (id {id})", zh: "- {title} (id {id})" },
  verbStop: { en: "stop", zh: "停止" },
  verbCheck: { en: "check", zh: "查看" },
  verbUpdate: { en: "update", zh: "补充" },
  noMatchNamedActive: {
    en: "I couldn't find an active background task matching {task}.",
    zh: "我没有找到与{task}匹配的进行中的后台任务。",
  },
  noMatchNamed: { en: "I couldn't find a background task matching {task}.", zh: "我没有找到与{task}匹配的后台任务。" },
  noMatchActive: {
    en: "There is no active background task in this conversation.",
    zh: "这个对话里没有进行中的后台任务。",
  },
  noMatch: { en: "There is no background task in this conversation.", zh: "这个对话里没有后台任务。" },

  startError: { en: "I couldn't start the background task: {error}", zh: "没能启动后台任务：{error}" },
  startAck: {
    en: "I've started researching {title} in the background. I'll tell you here when it's done.",
    zh: "我已经在后台开始研究{title}，完成后会在这里告诉你。",
  },
  startAckTimed: {
    en: "I've started researching {title} in the background.",
    zh: "我已经在后台开始研究{title}。",
  },
  startDueAt: {
    en: "I'll tell you at {due}, even if it finishes earlier.",
    zh: "我会在{due}告诉你结果，即使提前完成也等到那时。",
  },
  startDueBy: {
    en: "I'll tell you as soon as it's done, by {due} at the latest.",
    zh: "一完成就告诉你，最晚在{due}。",
  },
  startReportUnfinished: {
    en: "If it isn't finished by then, I'll tell you what exists so far.",
    zh: "如果到时还没做完，我会告诉你当时已有的结果。",
  },

  listError: { en: "I couldn't list the background tasks: {error}", zh: "没能列出后台任务：{error}" },
  listEmptyActive: {
    en: "Nothing is running in the background in this conversation right now.",
    zh: "这个对话里现在没有正在运行的后台任务。",
  },
  listEmpty: { en: "There are no background tasks in this conversation yet.", zh: "这个对话里还没有后台任务。" },
  listHead: { en: "Background tasks in this conversation ({count}):", zh: "这个对话的后台任务（{count} 个）：" },
  listLine: { en: "- {title} — {status}", zh: "- {title}：{status}" },
  // Ids only help when titles collide and the user has to pick one.
  listLineWithId: { en: "- {title} — {status} (id {id})", zh: "- {title}：{status} (id {id})" },

  cancelError: { en: "I couldn't stop it: {error}", zh: "没能停止任务：{error}" },
  cancelOk: {
    en: "OK, {title} is cancelled. Anything it already published stays in the conversation.",
    zh: "好的，{title}已取消。已经发布的内容会保留在对话里。",
  },

  checkError: { en: "I couldn't check on it: {error}", zh: "没能查询任务：{error}" },
  checkOthers: { en: "{noMatch} Tasks here: {titles}.", zh: "{noMatch}这里的任务有：{titles}。" },
  checkStatus: { en: "{title} is {status}.", zh: "{title}：{status}。" },
  checkReason: { en: "Reason: {error}.", zh: "原因：{error}。" },
  checkProgress: { en: "Latest progress: {text}", zh: "最新进展：{text}" },
  checkPartial: {
    en: "A partial report (version {version}) is available.",
    zh: "已有一份阶段性报告（第 {version} 版）可以阅读。",
  },
  checkFinal: { en: "The final report is available.", zh: "最终报告已经可以阅读。" },
  checkUnpublished: { en: "Nothing has been published yet.", zh: "还没有发布任何报告。" },
  checkDueAt: { en: "I'll tell you at {due}.", zh: "我会在{due}告诉你。" },
  checkDueBy: { en: "I'll tell you when it's done, by {due} at the latest.", zh: "完成后告诉你，最晚在{due}。" },
  checkDueOutcome: { en: "It was promised for {due}; {outcome}.", zh: "约定的时间是{due}，{outcome}。" },
  outcomeOnTime: { en: "it was delivered on time", zh: "已按时送达" },
  outcomeEarly: { en: "it finished early", zh: "提前完成了" },
  outcomeMissed: { en: "it wasn't finished in time", zh: "没能按时完成" },
  checkInput: { en: "It is waiting for your answer to a question.", zh: "它在等你回答一个问题。" },

  updateError: { en: "I couldn't pass that on: {error}", zh: "没能把补充要求交给任务：{error}" },
  updateOk: {
    en: "Noted — the next research step will also cover: {instruction}.",
    zh: "好的，下一步研究会同时涵盖：{instruction}。",
  },

  // Narration of task events (notification turns).
  narrationUnreadable: {
    en: "A background task needs your attention; see the task panel for details.",
    zh: "有一个后台任务需要你关注，详情见任务面板。",
  },
  narrationUntitled: { en: "Background task", zh: "后台任务" },
  narrationInput: {
    en: "Your background task {title} needs your input. You can answer it in the task panel.",
    zh: "你的后台任务{title}需要你的输入。请在任务面板中回答。",
  },
  narrationInputQuestion: {
    en: 'Your background task {title} needs your input: "{question}" You can answer it in the task panel.',
    zh: "你的后台任务{title}需要你的输入：「{question}」请在任务面板中回答。",
  },
  narrationDueFinal: {
    en: "{title} is due now, and the final report is above.",
    zh: "{title}已到约定时间，最终报告已在上方。",
  },
  narrationDueUnfinished: {
    en: "{title} is due now but isn't finished; here is what exists so far: {soFar}. It is still running, and I'll tell you again when it completes.",
    zh: "{title}已到约定时间，但还没有完成；目前已有的内容：{soFar}。研究仍在进行，完成后我会再告诉你。",
  },
  narrationSoFarPartial: { en: "a partial report is above", zh: "上方已有一份阶段性报告" },
  narrationSoFarNothing: { en: "nothing has been published yet", zh: "目前还没有发布任何内容" },
  narrationFinished: { en: "Your background task {title} has finished.", zh: "你的后台任务{title}已完成。" },
  narrationFinishedReport: {
    en: "Your background task {title} has finished — the final report is above.",
    zh: "你的后台任务{title}已完成，最终报告见上方。",
  },
  narrationFinishedLate: {
    en: "Your background task {title} has finished, later than the agreed time.",
    zh: "你的后台任务{title}已完成（晚于约定时间）。",
  },
  narrationFinishedLateReport: {
    en: "Your background task {title} has finished, later than the agreed time — the final report is above.",
    zh: "你的后台任务{title}已完成（晚于约定时间），最终报告见上方。",
  },
  narrationFailed: { en: "Your background task {title} failed.", zh: "你的后台任务{title}失败了。" },
  narrationFailedReason: {
    en: "Your background task {title} failed: {reason}",
    zh: "你的后台任务{title}失败了：{reason}",
  },
  narrationFailedKept: {
    en: "The partial results already published are still available.",
    zh: "已发布的部分结果仍然保留。",
  },
  narrationCancelled: {
    en: "Your background task {title} was cancelled; anything it had already published is kept.",
    zh: "你的后台任务{title}已取消，已发布的部分结果仍然保留。",
  },
  narrationStatus: {
    en: "Update on your background task {title}: it is {status}.",
    zh: "后台任务{title}的最新状态：{status}。",
  },
} as const satisfies Record<string, Record<Lang, string>>;

export type OfflineMessageId = keyof typeof MESSAGES;

export const OFFLINE_MESSAGES: Readonly<Record<OfflineMessageId, Readonly<Record<Lang, string>>>> = MESSAGES;

/** The message in `lang` with its `{name}` placeholders filled; unknown placeholders stay as written. */
export function offlineText(lang: Lang, id: OfflineMessageId, vars?: Record<string, string | number>): string {
  const text: string = MESSAGES[id][lang];
  if (!vars) return text;
  return text.replace(/\{(\w+)\}/g, (whole, name: string) => (Object.hasOwn(vars, name) ? String(vars[name]) : whole));
}

/** Sentences of one reply, spaced as the language spaces them. */
export function joinSentences(lang: Lang, sentences: readonly string[]): string {
  return sentences.join(offlineText(lang, "sentenceGap"));
}
