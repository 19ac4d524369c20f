/**
 * A mail's HTML shown in an `<iframe srcdoc>` under the console's CSP.
 *
 * A `srcdoc` document inherits the console's Content-Security-Policy (`style-src 'self'`),
 * and mails carry their styles inline (`style="…"`, as mail programs need them): the browser
 * would drop every one and report a CSP violation for each. Parsing the HTML in the console
 * (DOMParser, `<template>`) reports them too. So the styles are set aside in the text (the
 * provider's templates are autoescaped: every `<` in them opens a tag) and applied after the
 * frame loads through the CSSOM (`element.style.cssText`, a constructed stylesheet), which
 * the CSP allows. The frame is `sandbox="allow-same-origin"` for that, without
 * `allow-scripts`: nothing in the mail runs, and it cannot navigate the console.
 */

const STYLE_ELEMENT = /<style\b[^>]*>([\s\S]*?)<\/style\s*>/gi;
const TAG = /<[a-zA-Z][^>]*>/g;
const STYLE_ATTRIBUTE = /(\s)style(\s*=)/gi;
export const SET_ASIDE = "data-mail-style";

/** The HTML without inline styles (kept in `data-mail-style`), and its `<style>` sheets. */
export function setStylesAside(html: string): { html: string; sheets: string[] } {
  const sheets: string[] = [];
  const withoutSheets = html.replace(STYLE_ELEMENT, (_element, css: string) => {
    sheets.push(css);
    return "";
  });
  const withoutStyles = withoutSheets.replace(TAG, (tag) => tag.replace(STYLE_ATTRIBUTE, `$1${SET_ASIDE}$2`));
  return { html: withoutStyles, sheets };
}

/** Gives the loaded frame its styles back through the CSSOM. */
export function applyStyles(frame: HTMLIFrameElement, sheets: readonly string[]): void {
  const document = frame.contentDocument;
  const view = frame.contentWindow as (Window & typeof globalThis) | null;
  if (!document || !view) return;
  for (const element of document.querySelectorAll<HTMLElement>(`[${SET_ASIDE}]`)) {
    element.style.cssText = element.getAttribute(SET_ASIDE) ?? "";
  }
  if (sheets.length && "adoptedStyleSheets" in document) {
    const sheet = new view.CSSStyleSheet();
    sheet.replaceSync(sheets.join("\n"));
    document.adoptedStyleSheets = [sheet];
  }
}
