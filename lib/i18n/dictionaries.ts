// UI strings. English names marked "contract" are used verbatim by the external
// Playwright suite (DESIGN.md); the Chinese equivalents are what the Chinese
// tests look for, so change either side only together with those tests.

export const LANGS = ["en", "zh"] as const;
export type Lang = (typeof LANGS)[number];

export const LANG_NAMES: Record<Lang, string> = { en: "English", zh: "中文" };

const en = {
  appName: "Herald",

  // auth (contract: name, email, password, signIn, signUp)
  name: "Name",
  email: "Email",
  password: "Password",
  signIn: "Sign in",
  signUp: "Sign up",
  signInTitle: "Sign in to Herald",
  signUpTitle: "Create your Herald account",
  signInLead: "Your conversations and background tasks are waiting.",
  signUpLead: "Start chats and long-running research that reports back on time.",
  noAccount: "New to Herald?",
  haveAccount: "Already have an account?",
  passwordHint: "At least 8 characters.",
  signingIn: "Signing in…",
  signingUp: "Creating account…",
  errInvalidCredentials: "That email and password don't match an account. Check them and try again, or sign up.",
  errUserExists: "An account with this email already exists. Sign in instead, or use another email.",
  errPasswordShort: "That password is too short. Use at least 8 characters.",
  errPasswordLong: "That password is too long. Use at most 128 characters.",
  errInvalidEmail: "That doesn't look like an email address. Check it and try again.",
  errNameRequired: "Enter your name.",
  errEmailRequired: "Enter your email address.",
  errPasswordRequired: "Enter your password.",
  errTooMany: "Too many attempts. Wait a minute, then try again.",
  errNetwork: "Couldn't reach Herald. Check your connection and try again.",
  errAuthGeneric: "Something went wrong ({message}). Try again in a moment.",

  // shell (contract: newChat, conversations, signOut, language)
  newChat: "New chat",
  conversations: "Conversations",
  signOut: "Sign out",
  language: "Language",
  closePanel: "Close",
  skipToContent: "Skip to content",
  untitled: "Untitled conversation",
  noConversations: "No conversations yet.",
  loadingConversations: "Loading conversations…",
  conversationsFailed: "Couldn't load your conversations.",
  reload: "Reload",
  homeTitle: "What should Herald work on?",
  homeLead: "Start a new chat from the sidebar, or pick up a conversation where you left it.",
  homeLeadMobile: "Open Conversations to pick one up, or start a new chat.",
  createFailed: "Couldn't create a conversation. Try again.",

  // conversation (contract: message, send, thinking, tryAgain, showHistory, partial, final)
  message: "Message",
  send: "Send",
  composerPlaceholder: "Ask Herald anything…",
  composerHint: "Enter to send, Shift+Enter for a new line",
  thinking: "Thinking…",
  tryAgain: "Try again",
  discard: "Discard",
  sending: "Sending…",
  notSent: "Not sent",
  sendFailed: "Your message wasn't sent: {message}",
  chatHistory: "Chat history",
  emptyConversation: "No messages yet. Send one to get started.",
  loadingMessages: "Loading messages…",
  messagesFailed: "Couldn't load messages.",
  conversationGone: "This conversation was deleted.",
  backHome: "Back to your conversations",
  you: "You",
  assistant: "Herald",
  showHistory: "Show history",
  hideHistory: "Hide history",
  progressLabel: "Progress",
  progressUpdates: "{count} updates",
  partial: "Partial",
  final: "Final",
  publishedBody: "Published body",
  terminalLabel: "Task ended",
  noticeLabel: "Notice",
  openBody: "Open the published body",
  runFailed: "Herald couldn't finish that reply{detail}. Send your message again to retry.",
  runCancelled: "The reply was stopped.",
  outcome_on_time: "On time",
  outcome_early: "Early",
  outcome_missed: "Missed",
  outcome_late: "Late",
  outcome_stopped: "Stopped",

  // errors
  errUnavailable: "Herald is temporarily unavailable.",
  errConflict: "That conflicts with something that just changed.",
  errOffline: "You're offline.",

  // 404
  notFoundTitle: "Not found",
  notFoundLead: "This page doesn't exist, or it belongs to someone else.",
  goHome: "Go to Herald",
};

export type Dictionary = { [K in keyof typeof en]: string };
export type MessageKey = keyof Dictionary;

const zh: Dictionary = {
  appName: "Herald",

  name: "姓名",
  email: "邮箱",
  password: "密码",
  signIn: "登录",
  signUp: "注册",
  signInTitle: "登录 Herald",
  signUpTitle: "创建 Herald 账户",
  signInLead: "你的对话和后台任务都在这里等着你。",
  signUpLead: "开始聊天，或启动会按时回报的长时间研究。",
  noAccount: "还没有账户？",
  haveAccount: "已经有账户了？",
  passwordHint: "至少 8 个字符。",
  signingIn: "正在登录…",
  signingUp: "正在创建账户…",
  errInvalidCredentials: "邮箱或密码不正确。请检查后重试，或先注册。",
  errUserExists: "这个邮箱已经注册过了。请直接登录，或换一个邮箱。",
  errPasswordShort: "密码太短，请至少使用 8 个字符。",
  errPasswordLong: "密码太长，请最多使用 128 个字符。",
  errInvalidEmail: "这看起来不是有效的邮箱地址，请检查后重试。",
  errNameRequired: "请输入你的姓名。",
  errEmailRequired: "请输入你的邮箱地址。",
  errPasswordRequired: "请输入你的密码。",
  errTooMany: "尝试次数过多，请稍等一分钟再试。",
  errNetwork: "无法连接到 Herald，请检查网络后重试。",
  errAuthGeneric: "出了点问题（{message}），请稍后重试。",

  newChat: "新对话",
  conversations: "对话列表",
  signOut: "退出登录",
  language: "语言",
  closePanel: "关闭",
  skipToContent: "跳到主要内容",
  untitled: "未命名对话",
  noConversations: "还没有对话。",
  loadingConversations: "正在加载对话…",
  conversationsFailed: "无法加载你的对话。",
  reload: "重新加载",
  homeTitle: "想让 Herald 做点什么？",
  homeLead: "在侧边栏开始新对话，或继续之前的对话。",
  homeLeadMobile: "打开对话列表继续之前的对话，或开始新对话。",
  createFailed: "无法创建对话，请重试。",

  message: "消息",
  send: "发送",
  composerPlaceholder: "问 Herald 任何问题…",
  composerHint: "Enter 发送，Shift+Enter 换行",
  thinking: "思考中…",
  tryAgain: "重试",
  discard: "放弃",
  sending: "发送中…",
  notSent: "未发送",
  sendFailed: "消息未发送：{message}",
  chatHistory: "聊天记录",
  emptyConversation: "还没有消息，发一条开始吧。",
  loadingMessages: "正在加载消息…",
  messagesFailed: "无法加载消息。",
  conversationGone: "这个对话已被删除。",
  backHome: "返回对话列表",
  you: "你",
  assistant: "Herald",
  showHistory: "显示历史",
  hideHistory: "隐藏历史",
  progressLabel: "进度",
  progressUpdates: "{count} 条更新",
  partial: "部分",
  final: "最终",
  publishedBody: "已发布内容",
  terminalLabel: "任务结束",
  noticeLabel: "通知",
  openBody: "查看发布的内容",
  runFailed: "Herald 没能完成这次回复{detail}。请重新发送消息再试一次。",
  runCancelled: "回复已停止。",
  outcome_on_time: "准时",
  outcome_early: "提前",
  outcome_missed: "未按时",
  outcome_late: "逾期",
  outcome_stopped: "已停止",

  errUnavailable: "Herald 暂时不可用。",
  errConflict: "与刚刚发生的更改冲突。",
  errOffline: "你已离线。",

  notFoundTitle: "未找到",
  notFoundLead: "这个页面不存在，或者属于其他人。",
  goHome: "返回 Herald",
};

export const dictionaries: Record<Lang, Dictionary> = { en: { ...en }, zh };

export function isLang(value: unknown): value is Lang {
  return typeof value === "string" && (LANGS as readonly string[]).includes(value);
}

/** Maps a BCP 47 tag (navigator.language, Accept-Language) to a UI language. */
export function langFromTag(tag: string | null | undefined): Lang | null {
  if (!tag) return null;
  const primary = tag.trim().toLowerCase().split(/[-_]/)[0];
  if (primary === "zh") return "zh";
  if (primary === "en") return "en";
  return null;
}

export function translate(dict: Dictionary, key: MessageKey, vars?: Record<string, string | number>): string {
  const text = dict[key];
  if (!vars) return text;
  return text.replace(/\{(\w+)\}/g, (whole, name: string) => (name in vars ? String(vars[name]) : whole));
}

export const LANG_COOKIE = "herald-lang";
export const LANG_STORAGE_KEY = "herald.lang";
