import { Screen } from "../../ui/Screen";

export function GroupsScreen(_props: { params: Record<string, string> }) {
  return <Screen title="Groups">{null}</Screen>;
}

export function GroupScreen(_props: { params: Record<string, string> }) {
  return <Screen title="Group">{null}</Screen>;
}
