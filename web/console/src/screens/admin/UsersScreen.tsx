import { Screen } from "../../ui/Screen";

export function UsersScreen(_props: { params: Record<string, string> }) {
  return <Screen title="Users">{null}</Screen>;
}

export function UserScreen(_props: { params: Record<string, string> }) {
  return <Screen title="User">{null}</Screen>;
}
