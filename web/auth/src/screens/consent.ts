/**
 * Step "consent": what the application asks for, and Allow / Deny; with the brand's terms
 * of service and privacy policy when it has them (http(s) links only, opened apart so the
 * flow stays).
 */
import { consent } from "../api";
import { safeLink } from "../brand";
import { Form, button, h, screen, showScreen } from "../dom";
import { t, tNodes } from "../i18n";
import { clientName } from "./client";
import type { StepContext } from "./step";

function policyLink(href: string, text: string): HTMLAnchorElement {
  return h("a", { href, rel: "noopener", target: "_blank" }, text);
}

/** "Before you allow it, read the terms of service and the privacy policy." or null. */
function legalLine(flow: StepContext): HTMLParagraphElement | null {
  const brand = flow.challenge.brand;
  const terms = safeLink(brand?.termsUri ?? null);
  const privacy = safeLink(brand?.privacyUri ?? null);
  const nodes: Record<string, Node> = {};
  if (terms !== null) nodes.terms = policyLink(terms, t("consent.terms"));
  if (privacy !== null) nodes.privacy = policyLink(privacy, t("consent.privacy"));
  let parts: (string | Node)[];
  if (terms !== null && privacy !== null) {
    parts = tNodes("consent.legal", nodes);
  } else if (terms !== null) {
    parts = tNodes("consent.legalTermsOnly", nodes);
  } else if (privacy !== null) {
    parts = tNodes("consent.legalPrivacyOnly", nodes);
  } else {
    return null;
  }
  return h("p", { class: "legal" }, ...parts);
}

export function showConsent(flow: StepContext): void {
  screen(() => renderConsent(flow));
}

function renderConsent(flow: StepContext): void {
  const name = clientName(flow.challenge);
  const decide = (approve: boolean) => async (): Promise<boolean> => {
    form.clearErrors();
    try {
      return await flow.advance(await consent(flow.challenge.id, approve));
    } catch (error) {
      flow.fail(error, form);
      return false;
    }
  };

  const deny = button(t("consent.deny"), { type: "button", class: "secondary-button" });
  const actions = h("div", { class: "actions" }, button(t("consent.allow")), deny);
  const form: Form = new Form([], [actions], (): Promise<boolean> => decide(true)());
  deny.addEventListener("click", () => void form.run(decide(false)));

  const listId = "consent-scopes";
  showScreen(
    "consent",
    t("consent.title", { client: name }),
    h("p", { id: `${listId}-intro` }, ...tNodes("consent.asking", { client: h("strong", {}, name) })),
    h(
      "ul",
      { id: listId, class: "scopes", "aria-labelledby": `${listId}-intro` },
      ...flow.challenge.scopes.map((scope) => h("li", {}, scope.description || scope.value)),
    ),
    h("p", { class: "hint" }, t("consent.withdraw")),
    legalLine(flow),
    form.element,
  );
}
