/**
 * Every screen of the console: its path, its title in the navigation, and the scope that
 * shows it. Self-service screens need the `idp:*` scopes every person holds; an
 * administration screen is listed (and opens) only for holders of its read scope.
 */
import type { ComponentType } from "react";
import { AuthenticatorScreen } from "./screens/account/AuthenticatorScreen";
import { ConnectionsScreen } from "./screens/account/ConnectionsScreen";
import { EmailScreen } from "./screens/account/EmailScreen";
import { FaceScreen } from "./screens/account/FaceScreen";
import { PasskeysScreen } from "./screens/account/PasskeysScreen";
import { PasswordScreen } from "./screens/account/PasswordScreen";
import { PermissionsScreen } from "./screens/account/PermissionsScreen";
import { ProfileScreen } from "./screens/account/ProfileScreen";
import { SessionsScreen } from "./screens/account/SessionsScreen";
import { ApiScreen, ApisScreen } from "./screens/admin/ApisScreen";
import { ActivityScreen } from "./screens/admin/ActivityScreen";
import { AuditScreen } from "./screens/admin/AuditScreen";
import { BrandingScreen } from "./screens/admin/BrandingScreen";
import { ClientScreen, ClientsScreen } from "./screens/admin/ClientsScreen";
import { GroupScreen, GroupsScreen } from "./screens/admin/GroupsScreen";
import { ProfileFieldScreen, ProfileFieldsScreen } from "./screens/admin/ProfileFieldsScreen";
import { RoleScreen, RolesScreen } from "./screens/admin/RolesScreen";
import { UserScreen, UsersScreen } from "./screens/admin/UsersScreen";
import { WebhookScreen, WebhooksScreen } from "./screens/admin/WebhooksScreen";

export type Section = "account" | "admin";

export interface Route {
  path: string;
  /** The message id of the navigation entry (resolved with `t` at render); detail screens have none. */
  nav?: string;
  section: Section;
  scope: string;
  screen: ComponentType<{ params: Record<string, string> }>;
}

type Screen = Route["screen"];

/** A self-service screen under /console/account/ (the profile is /console/ itself). */
const account = (path: string, nav: string, scope: string, screen: Screen): Route => ({
  path: `/console/${path}`,
  nav,
  section: "account",
  scope,
  screen,
});

/** An administration list and the detail screen of one of its records (`…/:id`). */
const admin = (path: string, nav: string, resource: string, list: Screen, detail?: Screen): Route[] => {
  const scope = `idp:${resource}:read`;
  const routes: Route[] = [{ path: `/console/admin/${path}`, nav, section: "admin", scope, screen: list }];
  if (detail) routes.push({ path: `/console/admin/${path}/:id`, section: "admin", scope, screen: detail });
  return routes;
};

export const ROUTES: Route[] = [
  account("", "shell.nav.profile", "idp:account:read", ProfileScreen),
  account("account/email", "shell.nav.email", "idp:account:read", EmailScreen),
  account("account/password", "shell.nav.password", "idp:account:read", PasswordScreen),
  account("account/authenticator", "shell.nav.authenticator", "idp:account:read", AuthenticatorScreen),
  account("account/passkeys", "shell.nav.passkeys", "idp:account:read", PasskeysScreen),
  account("account/face", "shell.nav.face", "idp:account:read", FaceScreen),
  account("account/sessions", "shell.nav.sessions", "idp:sessions:read", SessionsScreen),
  account("account/connections", "shell.nav.connections", "idp:connections:read", ConnectionsScreen),
  account("account/permissions", "shell.nav.permissions", "idp:account:read", PermissionsScreen),
  ...admin("apis", "shell.nav.apis", "apis", ApisScreen, ApiScreen),
  ...admin("clients", "shell.nav.clients", "clients", ClientsScreen, ClientScreen),
  ...admin("groups", "shell.nav.groups", "groups", GroupsScreen, GroupScreen),
  ...admin("roles", "shell.nav.roles", "roles", RolesScreen, RoleScreen),
  ...admin("users", "shell.nav.users", "users", UsersScreen, UserScreen),
  ...admin("profile-fields", "shell.nav.profileFields", "profile-fields", ProfileFieldsScreen, ProfileFieldScreen),
  ...admin("webhooks", "shell.nav.webhooks", "webhooks", WebhooksScreen, WebhookScreen),
  ...admin("audit", "shell.nav.audit", "audit", AuditScreen),
  ...admin("activity", "admin-activity.nav", "audit", ActivityScreen),
  ...admin("branding", "admin-branding.nav", "branding", BrandingScreen),
];
