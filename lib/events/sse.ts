// Server-Sent Events framing for the feed (lib/events/feed.ts).

export const enc = new TextEncoder();

export function frame(fields: {
  id?: string;
  event?: string;
  data?: string;
  retry?: number;
  comment?: string;
}): string {
  let out = "";
  if (fields.comment !== undefined) out += `: ${fields.comment}\n`;
  if (fields.retry !== undefined) out += `retry: ${fields.retry}\n`;
  if (fields.id !== undefined) out += `id: ${fields.id}\n`;
  if (fields.event !== undefined) out += `event: ${fields.event}\n`;
  if (fields.data !== undefined) for (const line of fields.data.split("\n")) out += `data: ${line}\n`;
  return out + "\n";
}

export const HEARTBEAT_FRAME = enc.encode(frame({ comment: "hb" }));

export const eventFrame = (r: { seq: bigint | null; type: string | null; payload: unknown }) =>
  enc.encode(frame({ id: r.seq!.toString(), event: r.type!, data: JSON.stringify(r.payload) }));
