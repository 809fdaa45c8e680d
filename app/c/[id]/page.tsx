import type { Metadata } from "next";
import { notFound, redirect } from "next/navigation";
import { AppShell } from "@/components/app-shell";
import { ConversationView } from "@/components/conversation-view";
import { getSessionUser } from "@/lib/auth/session";
import { findConversation } from "@/lib/chat/queries";

interface Props {
  params: Promise<{ id: string }>;
}

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const user = await getSessionUser();
  if (!user) return {};
  const conversation = await findConversation(user.id, (await params).id);
  return conversation?.title ? { title: conversation.title } : {};
}

export default async function ConversationPage({ params }: Props) {
  const { id } = await params;
  const user = await getSessionUser();
  if (!user) redirect("/sign-in");
  // Foreign, missing and deleted look the same: a plain 404.
  const conversation = await findConversation(user.id, id);
  if (!conversation) notFound();
  return (
    <AppShell user={{ name: user.name }} conversation={conversation}>
      <ConversationView key={conversation.id} conversationId={conversation.id} initialConversation={conversation} />
    </AppShell>
  );
}
