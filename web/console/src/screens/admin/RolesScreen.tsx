import { Screen } from "../../ui/Screen";

export function RolesScreen(_props: { params: Record<string, string> }) {
  return <Screen title="Roles">{null}</Screen>;
}

export function RoleScreen(_props: { params: Record<string, string> }) {
  return <Screen title="Role">{null}</Screen>;
}
