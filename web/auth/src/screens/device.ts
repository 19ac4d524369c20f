/**
 * `/auth/device` (RFC 8628 §3.3): a signed-in person enters the code a device shows
 * (pre-filled from `?user_code=`), sees which application asks and for what, and allows
 * or denies it. Not signed in: the code is checked, then the person signs in and comes
 * back here with the code (`POST /api/v1/auth/device/signin` answers where to go).
 */
import { ApiError, decideDevice, deviceSignIn, lookupDevice, type DeviceRequest } from "../api";
import { formatUserCode, normaliseUserCode } from "../device-code";
import { Field, Form, button, h, showScreen } from "../dom";
import { DEVICE_CODE_INVALID, DEVICE_CODE_MALFORMED, genericMessage, tooManyAttempts } from "../messages";

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
    return DEVICE_CODE_INVALID;
  }
  if (error instanceof ApiError && error.status === 429) {
    return tooManyAttempts(error.retryAfter);
  }
  return genericMessage(error);
}

/** The code form; `notice` is shown above it (why the person is asked again). */
export function showDeviceCodeForm(prefill: string | null, notice: string | null = null): void {
  const code = new Field({
    name: "user_code",
    label: "Code",
    autocomplete: "off",
    spellcheck: false,
    hint: "8 letters, like BCDF-GHJK",
    ...(prefill === null ? {} : { value: prefill }),
  });
  code.input.setAttribute("autocapitalize", "characters");

  const form = new Form([code], [button("Continue")], async (form) => {
    form.clearErrors();
    const typed = normaliseUserCode(code.value);
    if (typed === null) {
      form.showFieldErrors([{ field: "user_code", message: DEVICE_CODE_MALFORMED }]);
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
    "Connect a device",
    notice === null ? null : h("p", { class: "notice" }, notice),
    h("p", {}, "Enter the code shown on the device you want to connect to your account."),
    form.element,
  );
}

/** The application, the scopes and the two choices. */
export function showDeviceApproval(request: DeviceRequest): void {
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
        showDeviceCodeForm(null, DEVICE_CODE_INVALID);
      } else {
        form.showError(text);
      }
    }
    return false;
  };

  const deny = button("Deny", { type: "button", class: "secondary-button" });
  const actions = h("div", { class: "actions" }, button("Allow"), deny);
  const form: Form = new Form([], [actions], (): Promise<boolean> => decide(true)());
  deny.addEventListener("click", () => void form.run(decide(false)));

  const listId = "device-scopes";
  showScreen(
    "device-approve",
    `Allow ${name} on your device?`,
    h(
      "p",
      { class: "notice" },
      "Only continue if you started this on your own device and it shows the code ",
      h("strong", { class: "user-code" }, request.userCode),
      ".",
    ),
    h("p", { id: `${listId}-intro` }, h("strong", {}, name), " is asking to:"),
    h(
      "ul",
      { id: listId, class: "scopes", "aria-labelledby": `${listId}-intro` },
      ...request.scopes.map((scope) => h("li", {}, scope.description || scope.value)),
    ),
    form.element,
  );
}

function showDeviceDecided(name: string, status: "approved" | "denied"): void {
  if (status === "approved") {
    showScreen(
      "device-approved",
      "Device connected",
      h("p", {}, `${name} can now use your account on your device. You can close this page.`),
    );
  } else {
    showScreen(
      "device-denied",
      "Request denied",
      h("p", {}, `${name} was not given access. You can close this page.`),
    );
  }
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
    const text = problemText(error);
    showDeviceCodeForm(prefill, text === null ? "Check that this is the code your device shows, then continue to sign in." : text);
  }
}
