/**
 * Webhooks (docs/webhooks.md): the wire shapes of `/admin/webhooks`, the calls the
 * screens make, and the pure rules of the screens (what a change sends, how a page of the
 * delivery log joins the rows already shown, how a delivery's outcome reads).
 */
import { type Page, get, patch, post } from "../../../api/client";
import { t } from "../../../i18n";

export const WEBHOOKS_READ = "idp:webhooks:read";
export const WEBHOOKS_WRITE = "idp:webhooks:write";

/** The console's list screen; an endpoint's screen is `${WEBHOOKS_SCREEN}/{id}`. */
export const WEBHOOKS_SCREEN = "/console/admin/webhooks";
export const WEBHOOKS_API = "/admin/webhooks";

export interface WebhookEndpoint {
  id: string;
  url: string;
  description: string;
  eventTypes: string[];
  enabled: boolean;
  createdAt: string;
  updatedAt: string;
}

/** The answer of a creation: the endpoint and its signing secret, shown once. */
export interface WebhookCreated extends WebhookEndpoint {
  secret: string;
}

export interface SecretRotated {
  secret: string;
}

export type DeliveryStatus = "pending" | "succeeded" | "failed";

export interface Delivery {
  id: string;
  /** The event's id, which is also the `webhook-id` header the receiver sees. */
  eventId: string;
  eventType: string;
  status: DeliveryStatus;
  attempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
  nextAttemptAt: string | null;
  createdAt: string;
  deliveredAt: string | null;
}

const seg = (id: string): string => encodeURIComponent(id);

export const endpointPath = (id: string): string => `${WEBHOOKS_API}/${seg(id)}`;
export const endpointScreen = (id: string): string => `${WEBHOOKS_SCREEN}/${seg(id)}`;

/** The title of an endpoint's screen: its host (the whole URL is among its facts; a long
 * URL in a heading would not fit a phone). */
export function endpointTitle(endpoint: WebhookEndpoint): string {
  try {
    return t("admin-ops.webhooks.titleTo", { host: new URL(endpoint.url).host });
  } catch {
    return t("admin-ops.webhooks.endpoint");
  }
}

/** What the endpoint form edits. */
export interface EndpointValues {
  url: string;
  description: string;
  eventTypes: string[];
  enabled: boolean;
}

export function valuesOf(endpoint?: WebhookEndpoint): EndpointValues {
  return {
    url: endpoint?.url ?? "",
    description: endpoint?.description ?? "",
    eventTypes: endpoint ? [...endpoint.eventTypes] : [],
    enabled: endpoint?.enabled ?? true,
  };
}

/** The checks made before sending; the API checks the rest (scheme, private addresses). */
export function endpointProblems(values: EndpointValues): Record<string, string> {
  const problems: Record<string, string> = {};
  if (values.url.trim() === "") problems.url = t("admin-ops.webhooks.error.url");
  if (values.eventTypes.length === 0) problems.eventTypes = t("admin-ops.webhooks.error.types");
  return problems;
}

/** The body of `POST /admin/webhooks`. */
export function createBody(values: EndpointValues): EndpointValues {
  return {
    url: values.url.trim(),
    description: values.description.trim(),
    eventTypes: values.eventTypes,
    enabled: values.enabled,
  };
}

const sameSet = (a: readonly string[], b: readonly string[]): boolean =>
  a.length === b.length && new Set([...a, ...b]).size === a.length;

/** The body of `PATCH /admin/webhooks/{id}`: only the members that changed. */
export function changesOf(endpoint: WebhookEndpoint, values: EndpointValues): Partial<EndpointValues> {
  const next = createBody(values);
  const body: Partial<EndpointValues> = {};
  if (next.url !== endpoint.url) body.url = next.url;
  if (next.description !== endpoint.description) body.description = next.description;
  if (!sameSet(next.eventTypes, endpoint.eventTypes)) body.eventTypes = next.eventTypes;
  if (next.enabled !== endpoint.enabled) body.enabled = next.enabled;
  return body;
}

/**
 * The chosen event types in the catalogue's order; types the catalogue no longer lists
 * (an endpoint older than a change of the catalogue) are kept at the end, so a save does
 * not drop them silently.
 */
export function orderedTypes(catalogue: readonly string[], chosen: readonly string[]): string[] {
  const picked = new Set(chosen);
  const known = catalogue.filter((type) => picked.has(type));
  return [...known, ...chosen.filter((type) => !catalogue.includes(type))];
}

/** "All event types": every type when some are missing, none when all are chosen. */
export function toggleAll(catalogue: readonly string[], chosen: readonly string[]): string[] {
  const extra = chosen.filter((type) => !catalogue.includes(type));
  return catalogue.every((type) => chosen.includes(type)) ? extra : [...catalogue, ...extra];
}

/** The state of the "All event types" box. */
export function allState(catalogue: readonly string[], chosen: readonly string[]): "all" | "some" | "none" {
  const count = catalogue.filter((type) => chosen.includes(type)).length;
  if (count === 0) return "none";
  return count === catalogue.length ? "all" : "some";
}

/** "user.created" → "user": the heading an event type is listed under. */
export function familyOf(type: string): string {
  const dot = type.indexOf(".");
  return dot < 0 ? type : type.slice(0, dot);
}

/** The event types by family, in the catalogue's order. */
export function families(catalogue: readonly string[]): { family: string; types: string[] }[] {
  const groups: { family: string; types: string[] }[] = [];
  for (const type of catalogue) {
    const family = familyOf(type);
    const group = groups.find((g) => g.family === family);
    if (group) group.types.push(type);
    else groups.push({ family, types: [type] });
  }
  return groups;
}

/** The status filter's choices; labels are read when shown, in the current language. */
export const DELIVERY_STATUSES: readonly { value: "" | DeliveryStatus; label: () => string }[] = [
  { value: "", label: () => t("admin-ops.webhooks.filter.all") },
  { value: "pending", label: () => t("admin-ops.webhooks.state.pending") },
  { value: "succeeded", label: () => t("admin-ops.webhooks.state.succeeded") },
  { value: "failed", label: () => t("admin-ops.webhooks.state.failed") },
];

/** A delivery's status as a tag: its words and its tone. */
export function statusTag(status: DeliveryStatus): { text: string; tone: "ok" | "bad" | "plain" } {
  switch (status) {
    case "succeeded":
      return { text: t("admin-ops.webhooks.state.succeeded"), tone: "ok" };
    case "failed":
      return { text: t("admin-ops.webhooks.state.failed"), tone: "bad" };
    default:
      return { text: t("admin-ops.webhooks.state.pending"), tone: "plain" };
  }
}

/** What the receiver last answered: "HTTP 500", "HTTP 500: …", the error alone, or "—". */
export function lastOutcome(delivery: Delivery): string {
  const parts: string[] = [];
  if (delivery.lastStatusCode !== null) parts.push(t("admin-ops.webhooks.log.http", { code: String(delivery.lastStatusCode) }));
  if (delivery.lastError) parts.push(delivery.lastError);
  return parts.length ? parts.join(": ") : "—";
}

/** Which instant the last column shows: when it arrived, or when the next try is due. */
export function whenOf(delivery: Delivery): { label: string; at: string | null } {
  if (delivery.deliveredAt) return { label: t("admin-ops.webhooks.when.delivered"), at: delivery.deliveredAt };
  if (delivery.status === "pending") return { label: t("admin-ops.webhooks.when.next"), at: delivery.nextAttemptAt };
  return { label: t("admin-ops.webhooks.when.gaveUp"), at: null };
}

/** An event id as a cell shows it: `evt_` and 8 more characters (the whole id in its tooltip). */
export function shortEventId(eventId: string): string {
  return eventId.length > 16 ? `${eventId.slice(0, 12)}…` : eventId;
}

/** The rows shown after "Load more": the new page after the old rows, each row once. */
export function appendPage(rows: readonly Delivery[], page: readonly Delivery[]): Delivery[] {
  const seen = new Set(rows.map((row) => row.id));
  return [...rows, ...page.filter((row) => !seen.has(row.id))];
}

/** The rows with one replaced by its new state (after "Send again"). */
export function replaceRow(rows: readonly Delivery[], delivery: Delivery): Delivery[] {
  return rows.map((row) => (row.id === delivery.id ? delivery : row));
}

// --- The calls --------------------------------------------------------------------------

export const listEndpoints = (cursor: string | null, signal?: AbortSignal): Promise<Page<WebhookEndpoint>> =>
  get<Page<WebhookEndpoint>>(WEBHOOKS_API, { cursor }, signal);

export async function eventTypes(signal?: AbortSignal): Promise<string[]> {
  return (await get<{ items: string[] }>(`${WEBHOOKS_API}/event-types`, undefined, signal)).items;
}

export const createEndpoint = (values: EndpointValues): Promise<WebhookCreated> =>
  post<WebhookCreated>(WEBHOOKS_API, createBody(values));

export const updateEndpoint = (id: string, body: Partial<EndpointValues>): Promise<WebhookEndpoint> =>
  patch<WebhookEndpoint>(endpointPath(id), body);

export const rotateSecret = (id: string): Promise<SecretRotated> =>
  post<SecretRotated>(`${endpointPath(id)}/rotate-secret`);

export const DELIVERY_PAGE_SIZE = 25;

export const listDeliveries = (
  id: string,
  status: "" | DeliveryStatus,
  cursor: string | null,
  signal?: AbortSignal,
): Promise<Page<Delivery>> =>
  get<Page<Delivery>>(`${endpointPath(id)}/deliveries`, { status, cursor, limit: DELIVERY_PAGE_SIZE }, signal);

export const resendDelivery = (id: string, deliveryId: string): Promise<Delivery> =>
  post<Delivery>(`${endpointPath(id)}/deliveries/${seg(deliveryId)}/resend`);
