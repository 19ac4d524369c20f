/**
 * Rows of `GET /admin/audit` (idp_common.storage.repos.audit.AuditRead: note `status_code` and
 * `occurred_at` keep their snake_case names on the wire) and how the screen reads them.
 */
import { t } from "../../../i18n";

export interface AuditRow {
  id: number;
  action: string;
  status_code: number;
  occurred_at: string;
  ip: string | null;
  actor: string | null;
  targetType: string | null;
  target: string | null;
  detail: Record<string, unknown>;
}

/** The action the logout dispatcher audits each back-channel delivery attempt under. */
export const DELIVERY_ACTION = "POST backchannel_logout";

/** Actions the services write (for the filter's suggestions; any text may be typed). */
export const KNOWN_ACTIONS = [
  DELIVERY_ACTION,
  "access.denied",
  "api.create",
  "api.delete",
  "api.update",
  "cleanup.ran",
  "client.create",
  "client.delete",
  "client.rotate_secret",
  "client.set_scopes",
  "client.update",
  "connection.withdraw",
  "consent.granted",
  "credentials.email",
  "credentials.password",
  "face.delete",
  "face.enroll",
  "group.add_members",
  "group.create",
  "group.delete",
  "group.remove_member",
  "group.set_roles",
  "group.update",
  "login.failed",
  "login.succeeded",
  "login.throttled",
  "password_reset.completed",
  "password_reset.requested",
  "profile.update",
  "profile_field.create",
  "profile_field.delete",
  "profile_field.update",
  "role.create",
  "role.delete",
  "role.set_scopes",
  "role.update",
  "scope.create",
  "scope.delete",
  "scope.update",
  "session.end",
  "session.ended",
  "totp.confirm",
  "totp.delete",
  "totp.enroll",
  "totp.failed",
  "totp.recovery_code_used",
  "user.clear_face",
  "user.clear_totp",
  "user.create",
  "user.created",
  "user.delete",
  "user.end_sessions",
  "user.reset_password",
  "user.set_profile",
  "user.set_roles",
  "user.set_scopes",
  "user.update",
] as const;

export interface Delivery {
  delivered: boolean;
  /** "delivered", "failed (timeout)", "failed (500)", "failed (connect)"... */
  label: string;
  uri: string | null;
}

/**
 * The outcome of a back-channel logout delivery row (logout_dispatcher.fanout.audit_entry:
 * `detail.delivered`, `detail.status_code`, `detail.error` when no answer arrived); null
 * for any other row.
 */
export function deliveryOf(row: AuditRow): Delivery | null {
  if (row.action !== DELIVERY_ACTION) return null;
  const detail = row.detail;
  const status = typeof detail.status_code === "number" ? detail.status_code : row.status_code;
  const delivered = typeof detail.delivered === "boolean" ? detail.delivered : status >= 200 && status < 300;
  const uri = typeof detail.uri === "string" ? detail.uri : null;
  if (delivered) return { delivered, label: t("admin-ops.audit.delivered"), uri };
  const error = typeof detail.error === "string" && detail.error ? detail.error : null;
  const why = error ?? (status ? String(status) : null);
  return { delivered, label: why ? t("admin-ops.audit.failedWhy", { why }) : t("admin-ops.audit.failed"), uri };
}

function show(value: unknown): string {
  if (typeof value === "string") return value;
  if (value === null || value === undefined) return "—";
  return JSON.stringify(value);
}

/** Members shown beside a delivery's tag rather than in the detail line. */
const DELIVERY_SHOWN = new Set(["uri", "delivered", "status_code", "error"]);

/** The detail as `name: value` pairs, short enough for a table cell. */
export function compactDetail(row: AuditRow, limit = 140): { text: string; cut: boolean } {
  const skip = row.action === DELIVERY_ACTION ? DELIVERY_SHOWN : new Set<string>();
  const text = Object.entries(row.detail)
    .filter(([name]) => !skip.has(name))
    .map(([name, value]) => `${name}: ${show(value)}`)
    .join(" · ");
  return text.length > limit ? { text: `${text.slice(0, limit - 1)}…`, cut: true } : { text, cut: false };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Console screens of the records a row may name (by their id). */
const SCREENS: Record<string, { path: string; scope: string }> = {
  user: { path: "/console/admin/users/", scope: "idp:users:read" },
  api: { path: "/console/admin/apis/", scope: "idp:apis:read" },
  client: { path: "/console/admin/clients/", scope: "idp:clients:read" },
  group: { path: "/console/admin/groups/", scope: "idp:groups:read" },
  role: { path: "/console/admin/roles/", scope: "idp:roles:read" },
  profile_field: { path: "/console/admin/profile-fields/", scope: "idp:profile-fields:read" },
};

/** The console path of a record named by type and id, when there is a screen for it. */
export function screenOf(type: string | null, id: string | null, can: (scope: string) => boolean): string | null {
  if (!type || !id || !UUID.test(id)) return null;
  const screen = SCREENS[type];
  return screen && can(screen.scope) ? screen.path + encodeURIComponent(id) : null;
}

/** An `<input type="datetime-local">` value as an ISO instant, or null when it is not one. */
export function instantOf(local: string): string | null {
  if (!local) return null;
  const date = new Date(local);
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
}
