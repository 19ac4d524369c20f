import { Screen } from "../../ui/Screen";

export function SessionsScreen(_props: { params: Record<string, string> }) {
  return <Screen title="Sessions">{null}</Screen>;
}
