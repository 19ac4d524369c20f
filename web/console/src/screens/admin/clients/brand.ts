/**
 * A client's own brand (`/admin/clients/{client_id}/branding`, issue #28, docs/branding.md):
 * the wire shape, the calls and the pure rules of the client screen's "Branding" section.
 * Every member null means "the provider's value"; the sign-in page shows the client's value
 * field by field over the provider's during that client's flow.
 */
import { ApiError, del, get, put } from "../../../api/client";
import { t } from "../../../i18n";
import { seg } from "../catalogue/common";

export const BRANDING_READ = "idp:branding:read";
export const BRANDING_WRITE = "idp:branding:write";

/** The client's own row; nulls where the provider's value applies. */
export interface ClientBrand {
  productName: string | null;
  primaryColor: string | null;
  termsUri: string | null;
  privacyUri: string | null;
  logoUri: string | null;
  updatedAt: string | null;
}

/** What the form edits: text for every input. */
export interface BrandValues {
  productName: string;
  primaryColor: string;
  termsUri: string;
  privacyUri: string;
}

export type BrandBody = { [K in keyof BrandValues]: string | null };

export const brandPath = (clientId: string): string => `/admin/clients/${seg(clientId)}/branding`;

export function valuesOf(brand: ClientBrand): BrandValues {
  return {
    productName: brand.productName ?? "",
    primaryColor: brand.primaryColor ?? "",
    termsUri: brand.termsUri ?? "",
    privacyUri: brand.privacyUri ?? "",
  };
}

/** `PUT …/branding`: every member, an emptied input as null (the provider's value again). */
export function bodyOf(values: BrandValues): BrandBody {
  const orNull = (value: string): string | null => (value.trim() ? value.trim() : null);
  return {
    productName: orNull(values.productName),
    primaryColor: orNull(values.primaryColor),
    termsUri: orNull(values.termsUri),
    privacyUri: orNull(values.privacyUri),
  };
}

const HEX = /^#[0-9a-fA-F]{6}$/;

export const isColour = (value: string): boolean => HEX.test(value.trim());

/** WCAG 2.x relative luminance of an sRGB `#rrggbb` colour. */
function luminance(hex: string): number {
  const channel = (offset: number): number => {
    const value = Number.parseInt(hex.slice(offset, offset + 2), 16) / 255;
    return value <= 0.04045 ? value / 12.92 : ((value + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5);
}

/**
 * Whether white text on `colour` reaches WCAG AA (4.5:1). Only such a colour gets a sample
 * button: a sample in a failing colour would itself be unreadable. The provider decides.
 */
export function passesContrast(colour: string): boolean {
  const hex = colour.trim();
  return HEX.test(hex) && 1.05 / (luminance(hex) + 0.05) >= 4.5;
}

/**
 * The value of the `<input type="color">` beside the text: the typed colour when it is one
 * (a colour input holds only lower-case `#rrggbb`), else a neutral dark blue to start from.
 */
export const pickerValue = (text: string): string => (isColour(text) ? text.trim().toLowerCase() : "#1d4f91");

/** Only the colour's form is checked before sending; the provider checks the contrast and the rest. */
export function localErrors(values: BrandValues): Record<string, string> {
  return values.primaryColor.trim() && !isColour(values.primaryColor)
    ? { primaryColor: t("admin-directory.brand.colourFormat") }
    : {};
}

export const EMPTY_BRAND: ClientBrand = {
  productName: null,
  primaryColor: null,
  termsUri: null,
  privacyUri: null,
  logoUri: null,
  updatedAt: null,
};

export const loadBrand = (clientId: string, signal?: AbortSignal): Promise<ClientBrand> =>
  get<ClientBrand>(brandPath(clientId), undefined, signal);

export const saveBrand = (clientId: string, values: BrandValues): Promise<ClientBrand> =>
  put<ClientBrand>(brandPath(clientId), bodyOf(values));

/** `DELETE …/branding`: the client's row goes; the provider's brand applies in full. */
export const resetBrand = (clientId: string): Promise<void> => del(brandPath(clientId));

export const removeLogo = (clientId: string): Promise<void> => del(`${brandPath(clientId)}/logo`);

/** The file input's field name, under which upload refusals are shown. */
export const LOGO_FIELD = "logo";

export const LOGO_TYPES = "image/png,image/jpeg,image/webp";

/** `PUT …/branding/logo` with the image as the body; a refusal is filed under {@link LOGO_FIELD}. */
export async function uploadLogo(clientId: string, file: File): Promise<ClientBrand> {
  try {
    return await put<ClientBrand>(`${brandPath(clientId)}/logo`, file);
  } catch (error) {
    throw explainLogoError(error);
  }
}

/**
 * The provider's sentence for a refused logo (it names `body` or `file`: SVG 415, too large
 * 413, not the image it claims 422), moved to the file input; the console's own words when
 * the provider gave none, and for 503 (no image store), which is no fault of the file.
 */
export function explainLogoError(error: unknown): unknown {
  if (!(error instanceof ApiError)) return error;
  const given = error.fieldMessage("body") ?? error.fieldMessage("file") ?? error.problem.detail;
  let message: string | undefined;
  if (error.status === 503) message = t("admin-directory.brand.logoUnavailable");
  else if (error.status === 413) message = given ?? t("admin-directory.brand.logoTooLarge");
  else if (error.status === 415) message = given ?? t("admin-directory.brand.logoWrongType");
  else if (error.status === 422) message = given;
  if (!message) return error;
  return new ApiError(error.status, { ...error.problem, detail: message, errors: [{ field: LOGO_FIELD, message }] });
}
