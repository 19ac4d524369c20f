import { Screen } from "../../ui/Screen";

export function ConnectionsScreen(_props: { params: Record<string, string> }) {
  return <Screen title="Connections">{null}</Screen>;
}
