"use client";

import { useId, useState } from "react";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { ResponseError, createApiKey, listApiKeys, revokeApiKey } from "@/lib/client/api";
import { errorWords } from "@/lib/client/error-words";
import { useI18n } from "@/lib/client/i18n";
import { KEY_EXPIRY_CHOICES, type PublicApiKey } from "@/lib/contract/keys";
import { MAX_PASSWORD_LENGTH } from "@/lib/contract/password";
import { LocalTime } from "./local-time";
import { Button } from "./ui/button";
import { InlineAlert } from "./ui/inline-alert";

const KEYS = ["api-keys"] as const;

/** The list is stale after a password change (it revokes every key); Settings' password form calls this. */
export const API_KEYS_QUERY = KEYS;

function KeyExpiry({ k, listedAt }: { k: PublicApiKey; listedAt: number }) {
  const { t } = useI18n();
  if (!k.expiresAt) return <span className="text-xs text-muted">{t("apiKeyNeverExpires")}</span>;
  // Judged against when the list was read, by this browser's clock, for display only; the server refuses an expired key by its own.
  const past = new Date(k.expiresAt).getTime() <= listedAt;
  return (
    <span className={past ? "text-xs text-danger" : "text-xs text-muted"}>
      {t(past ? "apiKeyExpired" : "apiKeyExpires")} <LocalTime iso={k.expiresAt} />
    </span>
  );
}

/** How long a new key lives: never, or one of the offered numbers of days. */
function ExpiryPicker({ value, onChange }: { value: string; onChange: (value: string) => void }) {
  const { t } = useI18n();
  const id = useId();
  return (
    <span className="flex flex-col gap-1">
      <label htmlFor={id} className="text-sm">
        {t("apiKeyExpiry")}
      </label>
      <select
        id={id}
        value={value}
        onChange={(e) => onChange(e.target.value)}
        className="h-9 rounded-lg border border-border bg-surface px-2 text-sm"
      >
        <option value="never">{t("apiKeyExpiryNever")}</option>
        {KEY_EXPIRY_CHOICES.map((days) => (
          <option key={days} value={String(days)}>
            {t("apiKeyExpiryDays", { days })}
          </option>
        ))}
      </select>
    </span>
  );
}

/** Name, password and lifetime of a new key; the password confirms it (a session alone mints no key). */
function NewKeyForm({ onCreated }: { onCreated: (created: { name: string; key: string }) => void }) {
  const { t } = useI18n();
  const qc = useQueryClient();
  const nameId = useId();
  const passwordId = useId();
  const [name, setName] = useState("");
  const [password, setPassword] = useState("");
  const [expiry, setExpiry] = useState("never");
  const create = useMutation({
    mutationFn: () =>
      createApiKey({ name: name.trim(), password, ...(expiry === "never" ? {} : { expiresInDays: Number(expiry) }) }),
    onSuccess: (k) => {
      onCreated({ name: k.name, key: k.key });
      setName("");
      setPassword("");
      void qc.invalidateQueries({ queryKey: KEYS });
    },
  });
  return (
    <>
      <form
        className="flex flex-wrap items-end gap-2"
        onSubmit={(e) => {
          e.preventDefault();
          if (name.trim() && password) create.mutate();
        }}
      >
        <span className="flex min-w-0 flex-1 flex-col gap-1">
          <label htmlFor={nameId} className="text-sm">
            {t("apiKeyName")}
          </label>
          <input
            id={nameId}
            value={name}
            maxLength={100}
            onChange={(e) => setName(e.target.value)}
            placeholder={t("apiKeyNameHint")}
            className="h-9 rounded-lg border border-border bg-surface px-2 text-sm"
          />
        </span>
        <span className="flex min-w-0 flex-1 flex-col gap-1">
          <label htmlFor={passwordId} className="text-sm">
            {t("apiKeyPassword")}
          </label>
          <input
            id={passwordId}
            type="password"
            autoComplete="current-password"
            value={password}
            maxLength={MAX_PASSWORD_LENGTH}
            onChange={(e) => setPassword(e.target.value)}
            className="h-9 rounded-lg border border-border bg-surface px-2 text-sm"
          />
        </span>
        <ExpiryPicker value={expiry} onChange={setExpiry} />
        <Button
          type="submit"
          variant="primary"
          size="md"
          disabled={!name.trim() || !password || create.isPending}
          className="h-9 disabled:opacity-50"
        >
          {t("apiKeyCreate")}
        </Button>
      </form>
      {create.isError && (
        <InlineAlert framed={false} size="xs" icon={false}>
          {create.error instanceof ResponseError && create.error.status === 403
            ? t("errWrongPassword")
            : errorWords(t, create.error)}
        </InlineAlert>
      )}
    </>
  );
}

/** The new key, shown this once with a copy button (the server keeps only its hash). */
function CreatedKey({ created }: { created: { name: string; key: string } }) {
  const { t } = useI18n();
  const [keyCopied, setKeyCopied] = useState(false);
  return (
    <div role="status" className="space-y-1 rounded-lg border border-warn/40 bg-warn-soft p-3 text-sm">
      <p>{t("apiKeyShownOnce", { name: created.name })}</p>
      <code
        data-testid="new-api-key"
        className="block rounded bg-surface px-2 py-1 font-mono text-xs [overflow-wrap:anywhere] select-all"
      >
        {created.key}
      </code>
      <div className="flex items-center gap-2">
        <Button
          variant="secondary"
          size="md"
          onClick={() =>
            void navigator.clipboard.writeText(created.key).then(
              () => setKeyCopied(true),
              () => setKeyCopied(false),
            )
          }
        >
          {t("copyKey")}
        </Button>
        {keyCopied && <span className="text-xs text-muted">{t("keyCopied")}</span>}
      </div>
    </div>
  );
}

/** The account's keys: name, prefix, last use, expiry, and a revoke button named after the key. */
function KeyList() {
  const { t } = useI18n();
  const qc = useQueryClient();
  const keys = useQuery({ queryKey: KEYS, queryFn: listApiKeys });
  const revoke = useMutation({
    mutationFn: revokeApiKey,
    onSuccess: () => void qc.invalidateQueries({ queryKey: KEYS }),
  });
  return (
    <ul className="divide-y divide-border rounded-lg border border-border" aria-label={t("apiKeysTitle")}>
      {(keys.data?.keys ?? []).length === 0 && <li className="px-3 py-2 text-sm text-muted">{t("apiKeysNone")}</li>}
      {keys.data?.keys.map((k) => (
        <li key={k.id} className="flex flex-wrap items-center gap-x-3 gap-y-1 px-3 py-2 text-sm">
          <span className="font-medium [overflow-wrap:anywhere]">{k.name}</span>
          <code className="font-mono text-xs text-muted">{k.prefix}…</code>
          <span className="text-xs text-muted">
            {k.lastUsedAt ? (
              <>
                {t("apiKeyLastUsed")} <LocalTime iso={k.lastUsedAt} />
              </>
            ) : (
              t("apiKeyNeverUsed")
            )}
          </span>
          <KeyExpiry k={k} listedAt={keys.dataUpdatedAt} />
          <Button
            variant="danger-outline"
            size="xs"
            className="ml-auto"
            aria-label={t("apiKeyRevokeNamed", { name: k.name })}
            disabled={revoke.isPending}
            onClick={() => revoke.mutate(k.id)}
          >
            {t("apiKeyRevoke")}
          </Button>
        </li>
      ))}
    </ul>
  );
}

/**
 * API keys for the Agent Protocol surface (/api/ap): name one, confirm with
 * the account's password (a session alone mints no key), choose how long it
 * lives, copy it once (it is never shown again), revoke it. A revoked or
 * expired key stops working at once; a new password revokes them all.
 */
export function ApiKeysSection() {
  const { t } = useI18n();
  const [created, setCreated] = useState<{ name: string; key: string } | null>(null);
  return (
    <section aria-labelledby="keys-title" className="space-y-3">
      <div className="space-y-1">
        <h2 id="keys-title" className="text-base font-semibold">
          {t("apiKeysTitle")}
        </h2>
        <p className="text-sm text-muted">{t("apiKeysLead")}</p>
        <p className="text-sm text-muted">{t("apiKeysPasswordRevokes")}</p>
      </div>
      <NewKeyForm onCreated={setCreated} />
      {/* Keyed by the key: a new one starts without the previous one's "Copied". */}
      {created && <CreatedKey key={created.key} created={created} />}
      <KeyList />
    </section>
  );
}
