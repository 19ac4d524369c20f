/**
 * The brand on the page (docs/branding.md): during a sign-in flow the
 * challenge's `brand` (the client's over the provider's), elsewhere the provider's from
 * `GET /api/v1/auth/branding`. Only what is safe is used: a logo on our own origin's
 * `/media/brand/`, links that are http(s), a colour that is `#rrggbb`. Text goes in with
 * `textContent`; the colour is a CSS custom property set through the CSSOM, which the CSP
 * (no inline style attributes) allows.
 */
import type { Brand } from "./api";

const LOGO_PATH = "/media/brand/";
const COLOUR = /^#[0-9a-f]{6}$/i;

/** `uri` when it is an http(s) URL, else null. */
export function safeLink(uri: string | null, base: string = window.location.href): string | null {
  if (uri === null) return null;
  try {
    const url = new URL(uri, base);
    return url.protocol === "https:" || url.protocol === "http:" ? url.href : null;
  } catch {
    return null;
  }
}

/** `uri` when it is an http(s) URL on `origin` under `/media/brand/`, else null. */
export function safeLogo(uri: string | null, origin: string = window.location.origin): string | null {
  const link = safeLink(uri, origin);
  if (link === null) return null;
  const url = new URL(link);
  return url.origin === origin && url.pathname.startsWith(LOGO_PATH) && !url.pathname.includes("..") ? url.href : null;
}

export function safeColour(colour: string | null): string | null {
  return colour !== null && COLOUR.test(colour) ? colour.toLowerCase() : null;
}

/** The primary colour as `--brand-color` (primary buttons, white text: AA checked on save). */
export function applyColour(colour: string | null, root: HTMLElement = document.documentElement): void {
  const safe = safeColour(colour);
  if (safe === null) {
    root.style.removeProperty("--brand-color");
    root.style.removeProperty("--brand-text");
  } else {
    root.style.setProperty("--brand-color", safe);
    root.style.setProperty("--brand-text", "#ffffff");
  }
}

export type { Brand };
