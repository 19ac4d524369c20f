/**
 * `/auth/device` (RFC 8628 §3.3): a signed-in person enters the code a device shows
 * (pre-filled from `?user_code=`), sees which application asks and for what, and allows
 * or denies it. Not signed in: the code is checked, then the person signs in and comes
 * back here with the code (`POST /api/v1/auth/device/signin` answers where to go).
 */
import { ApiError, decideDevice, deviceSignIn, lookupDevice, type DeviceRequest } from "../api";
import { USER_CODE_LENGTH, formatUserCode, normaliseUserCode } from "../device-code";
import { Field, Form, button, h, screen, showScreen } from "../dom";
import { t, tNodes } from "../i18n";
import { genericMessage, tooManyAttempts } from "../messages";

/** The example code of the hints (letters of the user-code alphabet). */
const EXAMPLE = "BCDF-GHJK";

/** Goes to `target` when it is an http(s) URL; true while the browser navigates. */
function go(target: string | undefined): boolean {
  if (target === undefined) {
    return false;
  }
  const url = new URL(target, window.location.href);
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    return false;
  }
  window.location.assign(url.href);
  return true;
}

/** The message for a failed lookup or decision, or `null` for "sign in first" (401). */
function problemText(error: unknown): string | null {
  if (error instanceof ApiError && error.status === 401) {
    return null;
  }
  if (error instanceof ApiError && error.status === 404) {
    return t("device.codeInvalid");
  }
  if (error instanceof ApiError && error.status === 429) {
    return tooManyAttempts(error.retryAfter);
  }
  return genericMessage(error);
}

/** The code form; `notice` is shown above it (why the person is asked again). */
export function showDeviceCodeForm(prefill: string | null, notice: (() => string) | null = null): void {
  screen(() => renderDeviceCodeForm(prefill, notice));
}

function renderDeviceCodeForm(prefill: string | null, notice: (() => string) | null): void {
  const code = new Field({
    name: "user_code",
    label: t("device.codeLabel"),
    autocomplete: "off",
    spellcheck: false,
    hint: t("device.codeHint", { letters: USER_CODE_LENGTH, example: EXAMPLE }),
    ...(prefill === null ? {} : { value: prefill }),
  });
  code.input.setAttribute("autocapitalize", "characters");

  const form = new Form([code], [button(t("device.continue"))], async (form) => {
    form.clearErrors();
    const typed = normaliseUserCode(code.value);
    if (typed === null) {
      form.showFieldErrors([{ field: "user_code", message: t("device.codeMalformed", { letters: USER_CODE_LENGTH, example: EXAMPLE }) }]);
      return false;
    }
    const shown = formatUserCode(typed);
    try {
      showDeviceApproval(await lookupDevice(shown));
      return false;
    } catch (error) {
      const text = problemText(error);
      if (text !== null) {
        form.showFieldErrors([{ field: "user_code", message: text }]);
        return false;
      }
    }
    try {
      return go((await deviceSignIn(shown)).redirectTo);
    } catch (error) {
      form.showFieldErrors([{ field: "user_code", message: problemText(error) ?? genericMessage(error) }]);
      return false;
    }
  });

  showScreen(
    "device-code",
    t("device.title"),
    notice === null ? null : h("p", { class: "notice" }, notice()),
    h("p", {}, t("device.intro")),
    form.element,
  );
}

/** The application, the scopes and the two choices. */
export function showDeviceApproval(request: DeviceRequest): void {
  screen(() => renderDeviceApproval(request));
}

function renderDeviceApproval(request: DeviceRequest): void {
  const name = request.client.name || request.client.client_id;
  const decide = (approve: boolean) => async (): Promise<boolean> => {
    form.clearErrors();
    try {
      showDeviceDecided(name, await decideDevice(request.userCode, approve));
    } catch (error) {
      const text = problemText(error);
      if (text === null) {
        return go((await deviceSignIn(request.userCode)).redirectTo);
      }
      if (error instanceof ApiError && error.status === 404) {
        showDeviceCodeForm(null, () => t("device.codeInvalid"));
      } else {
        form.showError(text);
      }
    }
    return false;
  };

  const deny = button(t("consent.deny"), { type: "button", class: "secondary-button" });
  const actions = h("div", { class: "actions" }, button(t("consent.allow")), deny);
  const form: Form = new Form([], [actions], (): Promise<boolean> => decide(true)());
  deny.addEventListener("click", () => void form.run(decide(false)));

  const listId = "device-scopes";
  showScreen(
    "device-approve",
    t("device.approveTitle", { client: name }),
    h(
      "p",
      { class: "notice" },
      ...tNodes("device.onlyContinue", { code: h("strong", { class: "user-code" }, request.userCode) }),
    ),
    h("p", { id: `${listId}-intro` }, ...tNodes("consent.asking", { client: h("strong", {}, name) })),
    h(
      "ul",
      { id: listId, class: "scopes", "aria-labelledby": `${listId}-intro` },
      ...request.scopes.map((scope) => h("li", {}, scope.description || scope.value)),
    ),
    form.element,
  );
}

function showDeviceDecided(name: string, status: "approved" | "denied"): void {
  screen(() => {
    if (status === "approved") {
      showScreen("device-approved", t("device.approvedTitle"), h("p", {}, t("device.approved", { client: name })));
    } else {
      showScreen("device-denied", t("device.deniedTitle"), h("p", {}, t("device.denied", { client: name })));
    }
  });
}

/** The page at load: with a code from the link, look it up at once when signed in. */
export async function showDevice(prefill: string | null): Promise<void> {
  if (prefill === null) {
    showDeviceCodeForm(null);
    return;
  }
  try {
    showDeviceApproval(await lookupDevice(prefill));
  } catch (error) {
    // Worded when shown, so that a change of language rewords it.
    showDeviceCodeForm(prefill, () => problemText(error) ?? t("device.checkCode"));
  }
}
