import type { Challenge } from "../api";
import { h } from "../dom";
import { t, tNodes } from "../i18n";

/** The application's display name (its client_id when it has none). */
export function clientName(challenge: Challenge): string {
  return challenge.client.name || challenge.client.client_id || t("client.fallbackName");
}

/** "to continue to <b>App</b>": the name as a text node, never markup, where the language puts it. */
export function clientLine(challenge: Challenge): HTMLParagraphElement {
  return h("p", { class: "lead" }, ...tNodes("client.continueTo", { client: h("strong", {}, clientName(challenge)) }));
}
