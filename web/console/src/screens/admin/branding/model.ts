/**
 * The provider's brand (`/admin/branding`, docs/branding.md) and the mail
 * template previews (`/admin/mail-templates`, docs/mail-templates.md): wire shapes, calls,
 * and the screen's own rules (the contrast hint); the rules both brands share are in ./rules.
 */
import { get } from "../../../api/client";
import { t } from "../../../i18n";
import { AA_RATIO, type BrandRow, type BrandValues, brandApi, colourErrors, contrastWithWhite } from "./rules";

export { BRANDING_READ, BRANDING_WRITE, isColour } from "./rules";

export const BRANDING_API = "/admin/branding";
export const MAIL_TEMPLATES_API = "/admin/mail-templates";

/** The provider's own row; nulls where unset. */
export type BrandSettings = BrandRow;

/** The live hint under the colour input (the provider decides when saving). */
export function contrastHint(colour: string): { text: string; ok: boolean } {
  if (!colour.trim()) return { text: t("admin-branding.colour.default"), ok: true };
  const ratio = contrastWithWhite(colour);
  if (ratio === null) return { text: t("admin-branding.colour.incomplete"), ok: false };
  // Rounded down, as the provider does, so the hint never promises more than it accepts.
  const shown = Math.floor(ratio * 10) / 10;
  const ok = ratio >= AA_RATIO;
  return { text: t(ok ? "admin-branding.colour.passes" : "admin-branding.colour.fails", { ratio: shown }), ok };
}

/** Checks made before sending: only the colour's form (the provider checks the rest). */
export const localErrors = (values: BrandValues): Record<string, string> =>
  colourErrors(values, () => t("admin-branding.colour.format"));

/** `/admin/branding`: a refused logo (415 for SVG, 413 for a large file) is shown at the file input. */
const api = brandApi(BRANDING_API, () => ({
  unavailable: t("admin-branding.logo.unavailable"),
  tooLarge: t("admin-branding.logo.too_large"),
  wrongType: t("admin-branding.logo.wrong_type"),
}));

export const loadBranding = api.load;
export const saveBranding = api.save;
export const removeLogo = api.removeLogo;
export const uploadLogo = api.uploadLogo;

// --- Mail templates ---------------------------------------------------------------------

export interface MailTemplates {
  templates: { kind: string; name: string }[];
  locales: string[];
}

export interface MailPreview {
  kind: string;
  locale: string;
  subject: string;
  text: string;
  html: string;
}

export const loadMailTemplates = (signal?: AbortSignal): Promise<MailTemplates> =>
  get<MailTemplates>(MAIL_TEMPLATES_API, undefined, signal);

export const loadMailPreview = (kind: string, locale: string, signal?: AbortSignal): Promise<MailPreview> =>
  get<MailPreview>(`${MAIL_TEMPLATES_API}/${encodeURIComponent(kind)}/preview`, { locale }, signal);

/** A template's name in the reader's language; the provider's name for a kind we do not know. */
export function templateName(template: { kind: string; name: string }): string {
  const id = `admin-branding.mail.kind.${template.kind}`;
  const text = t(id);
  return text === id ? template.name : text;
}
