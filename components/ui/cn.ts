export type ClassValue = string | false | null | undefined;

/** Joins the class names that are set: `cn("a", on && "b", undefined)`. No conflict resolution: pass no two classes for the same property. */
export function cn(...classes: ClassValue[]): string {
  let out = "";
  for (const c of classes) {
    if (c) out = out ? `${out} ${c}` : c;
  }
  return out;
}
