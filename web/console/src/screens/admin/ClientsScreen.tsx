import { Screen } from "../../ui/Screen";

export function ClientsScreen(_props: { params: Record<string, string> }) {
  return <Screen title="Clients">{null}</Screen>;
}

export function ClientScreen(_props: { params: Record<string, string> }) {
  return <Screen title="Client">{null}</Screen>;
}
