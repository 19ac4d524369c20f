/**
 * A client's own brand (`/admin/clients/{client_id}/branding`, docs/branding.md):
 * the calls and the client screen's own rules; the rules both brands share are in
 * ../branding/rules. Every member null means "the provider's value"; the sign-in page shows
 * the client's value field by field over the provider's during that client's flow.
 */
import { t } from "../../../i18n";
import { seg } from "../catalogue/common";
import { type BrandRow, type BrandValues, brandApi, colourErrors, isColour } from "../branding/rules";

export { BRANDING_READ, BRANDING_WRITE, EMPTY_BRAND, passesContrast } from "../branding/rules";

/** The client's own row; nulls where the provider's value applies. */
export type ClientBrand = BrandRow;

export const brandPath = (clientId: string): string => `/admin/clients/${seg(clientId)}/branding`;

/**
 * The value of the `<input type="color">` beside the text: the typed colour when it is one
 * (a colour input holds only lower-case `#rrggbb`), else a neutral dark blue to start from.
 */
export const pickerValue = (text: string): string => (isColour(text) ? text.trim().toLowerCase() : "#1d4f91");

/** Only the colour's form is checked before sending; the provider checks the contrast and the rest. */
export const localErrors = (values: BrandValues): Record<string, string> =>
  colourErrors(values, () => t("admin-directory.brand.colourFormat"));

/** The calls of one client's brand; a refused logo is shown at the file input. */
export const clientBrandApi = (clientId: string) =>
  brandApi(brandPath(clientId), () => ({
    unavailable: t("admin-directory.brand.logoUnavailable"),
    tooLarge: t("admin-directory.brand.logoTooLarge"),
    wrongType: t("admin-directory.brand.logoWrongType"),
  }));
