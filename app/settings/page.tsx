import { redirect } from "next/navigation";
import { AppShell } from "@/components/app-shell";
import { SettingsView } from "@/components/settings-view";
import { getSessionUser } from "@/lib/auth/session";

export default async function SettingsPage() {
  const user = await getSessionUser();
  if (!user) redirect("/sign-in?next=%2Fsettings");
  return (
    <AppShell user={{ name: user.name, email: user.email }} page="settings">
      <SettingsView email={user.email} />
    </AppShell>
  );
}
