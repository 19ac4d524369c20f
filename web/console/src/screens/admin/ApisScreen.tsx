import { Screen } from "../../ui/Screen";

export function ApisScreen(_props: { params: Record<string, string> }) {
  return <Screen title="Apis">{null}</Screen>;
}

export function ApiScreen(_props: { params: Record<string, string> }) {
  return <Screen title="Api">{null}</Screen>;
}
