import type { Challenge } from "../api";
import { h } from "../dom";

/** The application's display name (its client_id when it has none). */
export function clientName(challenge: Challenge): string {
  return challenge.client.name || challenge.client.client_id || "the application";
}

/** "to continue to <b>App</b>": built from text nodes, never markup. */
export function clientLine(prefix: string, challenge: Challenge): HTMLParagraphElement {
  return h("p", { class: "lead" }, `${prefix} `, h("strong", {}, clientName(challenge)));
}
