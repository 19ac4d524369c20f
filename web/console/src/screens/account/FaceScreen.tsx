import { Screen } from "../../ui/Screen";

export function FaceScreen(_props: { params: Record<string, string> }) {
  return <Screen title="Face">{null}</Screen>;
}
